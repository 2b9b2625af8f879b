// halo render: the policy in each harness's own managed files, plus manifest.json.
// Exit 0 written, 2 usage / invalid policy / release check failed (nothing written then).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/policy_args.h"
#include "policy/render/release_check.h"
#include "policy/render/render.h"

namespace halo::cli {
namespace {

struct RenderArgs {
  PolicyArgs policy;
  std::string os;
  std::string out;
  std::vector<std::string> harnesses;
  std::vector<std::string> pins;
  bool via_broker = false;
  std::uint16_t broker_port = 8877;
};

[[noreturn]] void usage(const std::string& what) {
  std::cerr << "halo render: " << what << "\n";
  throw Exit{2};
}

render::RenderRequest request_from(const RenderArgs& a) {
  render::RenderRequest req;
  auto os = render::parse_os(a.os);
  if (!os) usage("--os must be linux, macos or windows, not '" + a.os + "'");
  req.os = *os;
  for (const auto& h : a.harnesses) {
    auto parsed = render::parse_harness(h);
    if (!parsed) {
      usage("unknown harness '" + h +
            "' (claude-code, codex, gemini-cli, copilot-cli, opencode, cursor)");
    }
    req.harnesses.push_back(*parsed);
  }
  for (const auto& pin : a.pins) {
    auto eq = pin.find('=');
    auto h = render::parse_harness(pin.substr(0, eq));
    auto v = eq == std::string::npos ? std::nullopt : render::Version::parse(pin.substr(eq + 1));
    if (!h || !v) usage("--pin takes HARNESS=VERSION, e.g. copilot-cli=1.0.93, not '" + pin + "'");
    req.pins.emplace_back(*h, *v);
  }
  req.via_broker = a.via_broker;
  req.broker_port = a.broker_port;
  return req;
}

// Writes through a temporary file and a rename, so a reader never sees half a file.
void write_file(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  const auto tmp = path.string() + ".halo-tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << content;
    if (!f.flush()) usage("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

void run_render(const RenderArgs& a) {
  const render::RenderRequest req = request_from(a);
  auto pol = a.policy.load_or_exit();
  const render::RenderResult result = render::render_all(*pol, req);

  const auto problems = render::release_check(*pol, result);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << "halo render: release check: " << p << "\n";
    std::cerr << "halo render: nothing written (" << problems.size() << " release-check problem"
              << (problems.size() == 1 ? "" : "s") << ")\n";
    throw Exit{2};
  }

  const std::filesystem::path out(a.out);
  std::size_t files = 0, warnings = 0;
  for (const auto& ad : result.adapters) {
    for (const auto& f : ad.files) {
      write_file(out / f.path, f.content);
      ++files;
    }
    warnings += ad.warnings.size();
  }
  write_file(out / "manifest.json", render::manifest_json(*pol, result));

  std::cout << "halo render: " << files << " files and manifest.json for "
            << result.adapters.size() << " harnesses (" << render::to_string(req.os) << ") in "
            << a.out << "\n";
  for (const auto& ad : result.adapters) {
    std::cout << "  " << render::to_string(ad.harness) << ": native "
              << policy::to_string(ad.native_level()) << ", effective "
              << policy::to_string(ad.effective_level());
    for (const auto& f : ad.files) std::cout << "  " << f.path;
    if (ad.files.empty()) std::cout << "  (no file)";
    std::cout << "\n";
  }
  std::cout << "warnings (" << warnings << "):\n";
  for (const auto& ad : result.adapters) {
    for (const auto& w : ad.warnings) std::cout << "  " << w.to_string() << "\n";
  }
}

}  // namespace

void add_render_command(CLI::App& app) {
  auto args = std::make_shared<RenderArgs>();
  auto* cmd = app.add_subcommand(
      "render", "Render the policy into each harness's managed files plus manifest.json");
  args->policy.add_to(cmd);
  cmd->add_option("--os", args->os, "Target OS: linux, macos or windows")->required();
  cmd->add_option("--out", args->out, "Output directory (files go to their OS paths under it)")
      ->required();
  cmd->add_option("--harness", args->harnesses,
                  "Only these harnesses (repeatable): claude-code, codex, gemini-cli, "
                  "copilot-cli, opencode, cursor");
  cmd->add_option("--pin", args->pins, "HARNESS=VERSION the files are for (repeatable)");
  cmd->add_flag("--via-broker", args->via_broker,
                "Point harness sandboxes that can use a local proxy at the halo broker");
  cmd->add_option("--broker-port", args->broker_port,
                  "Loopback port of the halo broker for --via-broker (default 8877)");
  cmd->callback([args] { run_render(*args); });
}

}  // namespace halo::cli
