# Tests for halo_dns_filter (included from tests/dns/CMakeLists.txt).
add_executable(dns_filter_unit_tests
  ${CMAKE_CURRENT_SOURCE_DIR}/message_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/session_pool_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/query_handler_test.cpp)
target_link_libraries(dns_filter_unit_tests PRIVATE halo_dns_filter GTest::gtest_main)
gtest_discover_tests(dns_filter_unit_tests PROPERTIES LABELS unit)

add_executable(dns_filter_loopback_tests ${CMAKE_CURRENT_SOURCE_DIR}/dns_filter_test.cpp)
target_link_libraries(dns_filter_loopback_tests PRIVATE halo_dns_filter GTest::gtest_main)
gtest_discover_tests(dns_filter_loopback_tests PROPERTIES LABELS "loopback;integration" TIMEOUT 60)

# A standalone server for the integration test and the bench when no broker is at hand.
add_executable(halo_dns_serve ${CMAKE_CURRENT_SOURCE_DIR}/dns_serve.cpp)
target_link_libraries(halo_dns_serve PRIVATE halo_dns_filter)

# End to end with dig, a python stub resolver and dnsmasq as the upstream (all loopback).
# Skipped (77) when dig or dnsmasq is missing; `make deps` installs both.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_test(NAME dns_filter_dig_dnsmasq
    COMMAND ${CMAKE_COMMAND} -E env
            sh -c "command -v dig >/dev/null && command -v dnsmasq >/dev/null || exit 77; exec \"$0\" \"$@\""
            ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/dns_integration_test.py
            --serve $<TARGET_FILE:halo_dns_serve>)
  set_tests_properties(dns_filter_dig_dnsmasq PROPERTIES
    LABELS "integration;loopback" TIMEOUT 120 SKIP_RETURN_CODE 77)
  if(TARGET halo)
    # The same through `halo broker --dns`, plus a CONNECT to a session address that must
    # reach a loopback HTTP server on a granted port at the name's upstream address.
    add_test(NAME dns_filter_broker_dig_dnsmasq
      COMMAND ${CMAKE_COMMAND} -E env
              sh -c "command -v dig >/dev/null && command -v dnsmasq >/dev/null || exit 77; exec \"$0\" \"$@\""
              ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/dns_integration_test.py
              --halo $<TARGET_FILE:halo>)
    set_tests_properties(dns_filter_broker_dig_dnsmasq PROPERTIES
      LABELS "integration;loopback" TIMEOUT 120 SKIP_RETURN_CODE 77)
  endif()
endif()
