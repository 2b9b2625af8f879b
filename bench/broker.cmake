# The broker's load client (bench/broker_compare.sh drives it against halo broker, Squid
# and direct connections).
find_package(Boost 1.81 REQUIRED)
add_executable(load_client ${CMAKE_CURRENT_LIST_DIR}/load_client.cpp)
target_link_libraries(load_client PRIVATE Boost::headers)
