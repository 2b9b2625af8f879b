#include "policy/egress_rules.h"

namespace halo::policy {

const char* to_string(Verdict v) { return v == Verdict::allow ? "allow" : "deny"; }

const char* to_string(Reason r) {
  switch (r) {
    case Reason::denied_domain: return "denied_domain";
    case Reason::allowed_domain: return "allowed_domain";
    case Reason::default_action: return "default";
    case Reason::loopback_grant: return "loopback_grant";
    case Reason::loopback_no_grant: return "loopback_not_granted";
    case Reason::address_denied: return "address_denied";
    case Reason::address_private: return "address_private";
    case Reason::address_granted: return "address_granted";
    case Reason::address_public: return "address_public";
    case Reason::no_address: return "no_address";
    case Reason::malformed_host: return "malformed_host";
    case Reason::bad_port: return "bad_port";
    case Reason::port_required: return "port_required";
  }
  return "unknown";
}

namespace {

std::string with_source(std::string text, const SourceLoc& loc) {
  std::string s = loc.short_form();
  if (!s.empty()) text += " (" + s + ")";
  return text;
}

std::string describe_address(const AddressJudgement& j, const char* what) {
  std::string s = "address " + j.judged.to_string();
  if (j.embedding != nullptr) s += " (embedded " + std::string(j.embedding) + ")";
  return s + " is " + what;
}

}  // namespace

std::string Decision::rule() const {
  switch (reason) {
    case Reason::denied_domain:
    case Reason::allowed_domain:
      if (domain == nullptr) return to_string(reason);
      if (domain->origin.starts_with("preset ")) return domain->origin + ": " + domain->pattern;
      return with_source(domain->origin + ": " + domain->pattern, domain->loc);
    case Reason::default_action:
      return std::string("default: ") + policy::to_string(default_action);
    case Reason::loopback_grant:
      return grant ? with_source("loopback grant: " + std::to_string(grant->port), grant->loc)
                   : "loopback grant";
    case Reason::loopback_no_grant:
      if (has_address && address.cls != AddressClass::loopback) {
        return "address " + address.judged.to_string() + " is this host's own: port " +
               std::to_string(port) + " is not granted";
      }
      return "loopback: port " + std::to_string(port) + " is not granted";
    case Reason::address_denied:
    case Reason::address_private:
    case Reason::address_public:
      return describe_address(address, policy::to_string(address.cls));
    case Reason::address_granted:
      return address_grant ? with_source("allowedAddresses: " + address_grant->text,
                                         address_grant->loc)
                           : "allowedAddresses";
    case Reason::malformed_host: return std::string("malformed host: ") + detail;
    case Reason::bad_port: return std::string("bad port: ") + detail;
    case Reason::port_required: return std::string("bad input: ") + detail;
    case Reason::no_address: return std::string("no address: ") + detail;
  }
  return "unknown";
}

std::string Decision::source() const {
  if ((reason == Reason::denied_domain || reason == Reason::allowed_domain) && domain) {
    return domain->loc.short_form();
  }
  if (reason == Reason::loopback_grant && grant) return grant->loc.short_form();
  if (reason == Reason::address_granted && address_grant) return address_grant->loc.short_form();
  return {};
}

}  // namespace halo::policy
