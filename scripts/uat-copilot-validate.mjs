// Validates a managed-settings.json with Copilot CLI's own runtime validator
// (JSON-RPC managedSettings.validate, layer "device"; performs no I/O) through the SDK
// bundled with the installed CLI. Prints one line per problem:
//   INVALID     the runtime rejects the document
//   DIAGNOSTIC  an error or warning the runtime reports (e.g. an ignored key)
//   DROPPED     the canonical document differs from the file: Copilot silently drops
//               invalid host rules, so a difference means something was lost
// and "OK" when none. usage: node uat-copilot-validate.mjs SDK_DIR RUNTIME_BINARY FILE
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [sdkDir, runtime, file] = process.argv.slice(2);
const sdk = await import(pathToFileURL(sdkDir + '/index.js').href);
const client = new sdk.CopilotClient({
  connection: sdk.RuntimeConnection.forStdio({ path: runtime }),
  logLevel: 'none',
});
const timer = setTimeout(() => { console.log('ERROR validator timed out'); process.exit(1); }, 60000);
await client.start();
const content = readFileSync(file, 'utf8');
const res = await client.rpc.managedSettings.validate({ content, layer: 'device' });
const sorted = (v) => Array.isArray(v) ? v.map(sorted)
  : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]))
  : v;
let problems = 0;
if (!res.valid) { console.log('INVALID'); problems++; }
for (const d of res.diagnostics || []) {
  console.log(`DIAGNOSTIC ${d.severity} ${d.path}: ${d.message}`); problems++;
}
if (res.valid && JSON.stringify(sorted(res.settings)) !== JSON.stringify(sorted(JSON.parse(content)))) {
  console.log('DROPPED canonical: ' + JSON.stringify(res.settings)); problems++;
}
if (!problems) console.log('OK');
clearTimeout(timer);
await client.stop();
process.exit(0);
