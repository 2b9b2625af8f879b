#pragma once
// JSON text for rendered files: two-space indent, keys in insertion order (the order the
// adapter wrote them, which is the order a reader expects), one trailing newline.
#include <string>

#include <nlohmann/json.hpp>

namespace halo::render {

using Json = nlohmann::ordered_json;

inline std::string json_text(const Json& j) { return j.dump(2) + "\n"; }

}  // namespace halo::render
