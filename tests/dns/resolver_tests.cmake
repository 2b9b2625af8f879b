# Resolver tests: the hosts table, and AresResolver on loopback (hosts file, localhost,
# a silent server for the deadline). The CNAME/rebinding paths run against a real
# dnsmasq in tests/broker/broker_integration.py.
add_executable(dns_resolver_tests
  ${CMAKE_CURRENT_LIST_DIR}/hosts_file_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ares_resolver_test.cpp)
target_link_libraries(dns_resolver_tests PRIVATE halo_dns_resolver GTest::gtest_main)
gtest_discover_tests(dns_resolver_tests PROPERTIES LABELS "unit;loopback")
