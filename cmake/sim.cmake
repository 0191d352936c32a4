# kprov-sim: the stand-in for Gardener, the runtime clusters and Compass Director (sim/; its tests and README in tests/sim/).
# A library (everything but main.cpp, so tests can run the simulator in-process) and a thin
# executable, installed because users' CI runs it.

file(GLOB KPROV_SIM_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/*.cpp)
list(REMOVE_ITEM KPROV_SIM_SOURCES ${PROJECT_SOURCE_DIR}/sim/main.cpp)
add_library(kprov_sim STATIC ${KPROV_SIM_SOURCES})
target_include_directories(kprov_sim PUBLIC ${PROJECT_SOURCE_DIR}/sim)
target_link_libraries(kprov_sim
  PUBLIC nlohmann_json::nlohmann_json OpenSSL::SSL OpenSSL::Crypto Threads::Threads
  PRIVATE PkgConfig::HTTPLIB PkgConfig::LIBYAML kprov_warnings kprov_net_base64)

add_executable(kprov-sim ${PROJECT_SOURCE_DIR}/sim/main.cpp)
target_link_libraries(kprov-sim PRIVATE kprov_sim kprov_warnings)
install(TARGETS kprov-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(KPROV_BUILD_TESTS)
  enable_testing()
  find_package(GTest REQUIRED)
  include(GoogleTest)
  file(GLOB KPROV_SIM_TEST_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/sim/*.cpp)
  add_executable(kprov_sim_tests ${KPROV_SIM_TEST_SOURCES})
  target_include_directories(kprov_sim_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/sim
                             ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(kprov_sim_tests PRIVATE kprov_sim kprov_warnings GTest::gtest_main
                        PkgConfig::HTTPLIB)
  target_compile_definitions(kprov_sim_tests PRIVATE
    KPROV_SIM_BINARY="$<TARGET_FILE:kprov-sim>")
  add_dependencies(kprov_sim_tests kprov-sim)
  gtest_discover_tests(kprov_sim_tests TEST_PREFIX "sim." DISCOVERY_TIMEOUT 60)

  # The official clients against the built kprov-sim (tests/sim/conformance/): Debian's
  # python3-kubernetes lives in /usr/bin/python3's packages, not in another python3 on PATH.
  if(EXISTS /usr/bin/python3)
    set(KPROV_CONFORMANCE_PYTHON /usr/bin/python3)
  else()
    find_program(KPROV_CONFORMANCE_PYTHON python3 REQUIRED)
  endif()
  add_test(NAME sim.conformance.official_clients
           COMMAND ${KPROV_CONFORMANCE_PYTHON}
                   ${PROJECT_SOURCE_DIR}/tests/sim/conformance/conformance.py
                   --sim $<TARGET_FILE:kprov-sim> --kprov $<TARGET_FILE:kprov>
                   --example ${PROJECT_SOURCE_DIR}/examples/gcp.yaml)
  set_tests_properties(sim.conformance.official_clients PROPERTIES SKIP_RETURN_CODE 77
                       TIMEOUT 300)
endif()
