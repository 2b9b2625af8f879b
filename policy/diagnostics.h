#pragma once
// Where a policy value came from, and the errors and warnings about it. Loading and
// validation collect every problem (never just the first) so a policy author fixes a
// file in one pass; one error rejects the whole policy.
#include <string>
#include <vector>

namespace halo::policy {

struct SourceLoc {
  std::string file;  // as given on the command line or relative to the including file
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown

  // "profiles/base.yaml:14" (the form rules are named by in decisions)
  std::string short_form() const;
  // "profiles/base.yaml:14:5" (the form errors are reported in)
  std::string long_form() const;
};

struct Diagnostic {
  enum class Severity { error, warning };
  Severity severity = Severity::error;
  SourceLoc loc;
  std::string field;  // e.g. "egress.allowedDomains[2]"
  std::string message;
  std::string fix;  // empty when no fix is obvious

  // "FILE:LINE:COL: error: FIELD: MESSAGE (fix: FIX)"
  std::string to_string() const;
};

struct Diagnostics {
  std::vector<Diagnostic> items;
  void error(SourceLoc loc, std::string field, std::string message, std::string fix = {});
  void warning(SourceLoc loc, std::string field, std::string message, std::string fix = {});
  bool has_errors() const;
  std::size_t error_count() const;
  void append(const Diagnostics& other);
};

}  // namespace halo::policy
