#include "policy/diagnostics.h"

namespace halo::policy {

std::string SourceLoc::short_form() const {
  if (file.empty()) return {};
  if (line <= 0) return file;
  return file + ":" + std::to_string(line);
}

std::string SourceLoc::long_form() const {
  if (file.empty()) return "<policy>";
  std::string s = file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

std::string Diagnostic::to_string() const {
  std::string s = loc.long_form();
  s += severity == Severity::error ? ": error: " : ": warning: ";
  if (!field.empty()) s += field + ": ";
  s += message;
  if (!fix.empty()) s += " (fix: " + fix + ")";
  return s;
}

void Diagnostics::error(SourceLoc loc, std::string field, std::string message, std::string fix) {
  items.push_back({Diagnostic::Severity::error, std::move(loc), std::move(field),
                   std::move(message), std::move(fix)});
}

void Diagnostics::warning(SourceLoc loc, std::string field, std::string message,
                          std::string fix) {
  items.push_back({Diagnostic::Severity::warning, std::move(loc), std::move(field),
                   std::move(message), std::move(fix)});
}

bool Diagnostics::has_errors() const { return error_count() > 0; }

std::size_t Diagnostics::error_count() const {
  std::size_t n = 0;
  for (const auto& d : items) n += d.severity == Diagnostic::Severity::error;
  return n;
}

void Diagnostics::append(const Diagnostics& other) {
  items.insert(items.end(), other.items.begin(), other.items.end());
}

}  // namespace halo::policy
