#pragma once
namespace halo::cli {
inline constexpr const char* kVersion = "0.1.0";
}
