# DNS filter load bench (included from bench/CMakeLists.txt). `cmake --build B --target
# dns_bench` runs bench/dns_bench.sh with dnsperf against the filter on loopback; it
# needs halo_dns_serve (built with the tests) and the dnsperf package.
if(TARGET halo_dns_serve)
  add_custom_target(dns_bench
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/dns_bench.sh $<TARGET_FILE:halo_dns_serve> 5
    DEPENDS halo_dns_serve
    USES_TERMINAL
    COMMENT "DNS filter qps with dnsperf (allowed/synthesized and denied)")
endif()
