// launch::make_launcher for Linux: the backend CMake chose for this platform.
#include <memory>

#include "platform/linux/netns_launcher.h"

namespace halo::launch {

std::unique_ptr<Launcher> make_launcher(Backend backend, const std::string& not_isolated_reason) {
  switch (backend) {
    case Backend::linux_netns:
      return std::make_unique<platform_linux::NetnsLauncher>();
    case Backend::env:
      return std::make_unique<platform_linux::EnvLauncher>(not_isolated_reason);
    case Backend::automatic:
      break;
  }
  return nullptr;
}

}  // namespace halo::launch
