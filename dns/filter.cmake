# halo_dns_filter: DNS message codec, session address pool, query policy and the
# UDP/TCP filter server (Boost.Asio coroutines), forwarding through c-ares.
# Included from dns/CMakeLists.txt. The pure parts (message*, session_pool, query_handler,
# upstream_answer) are also compiled straight into fuzz/dns/.
find_package(Boost 1.81 REQUIRED)
pkg_check_modules(CARES_FILTER REQUIRED IMPORTED_TARGET libcares)
find_package(Threads REQUIRED)

add_library(halo_dns_filter STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/message_parse.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/message_build.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/session_pool.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/query_handler.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/upstream_answer.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/addr_port.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/ares_upstream.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/dns_filter.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/dns_filter_setup.cpp)
target_include_directories(halo_dns_filter PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(halo_dns_filter
  PUBLIC halo_policy
  PRIVATE Boost::headers PkgConfig::CARES_FILTER Threads::Threads)
target_compile_definitions(halo_dns_filter PRIVATE BOOST_ASIO_NO_DEPRECATED)
set_target_properties(halo_dns_filter PROPERTIES POSITION_INDEPENDENT_CODE ON)
