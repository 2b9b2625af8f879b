# halo_dns_resolver: the c-ares resolver driven by Asio (dns/ares_resolver.h), and the
# hosts-file table it answers from first. Used by the broker.
pkg_check_modules(CARES REQUIRED IMPORTED_TARGET libcares)
find_package(Boost 1.81 REQUIRED)
add_library(halo_dns_resolver STATIC
  ${CMAKE_CURRENT_LIST_DIR}/hosts_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ares_resolver.cpp)
target_link_libraries(halo_dns_resolver PUBLIC halo_policy Boost::headers PkgConfig::CARES)
target_compile_definitions(halo_dns_resolver PUBLIC BOOST_ASIO_NO_DEPRECATED)
