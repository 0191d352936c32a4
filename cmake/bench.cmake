# Benchmarks (bench/README.md). Built with the tests (they reuse the test helpers that start
# kprov-sim and child processes); run by hand or by bench/*.sh.
if(KPROV_BUILD_TESTS AND TARGET kprov-sim)
  # kprov-bench-provision: the engine's throughput and detection delay against kprov-sim.
  add_executable(kprov-bench-provision bench/provision_bench.cpp)
  target_link_libraries(kprov-bench-provision PRIVATE kprov_cli kprov_test_support kprov_warnings
    CLI11::CLI11 CURL::libcurl nlohmann_json::nlohmann_json)
  target_compile_definitions(kprov-bench-provision PRIVATE
    KPROV_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KPROV_BINARY="$<TARGET_FILE:kprov>"
    KPROV_SIM_BINARY="$<TARGET_FILE:kprov-sim>")
  add_dependencies(kprov-bench-provision kprov kprov-sim)
endif()

# kprov-bench-seed: a store of many runtimes for bench/list_status.sh (list and status at scale).
add_executable(kprov-bench-seed bench/list_status_seed.cpp)
target_link_libraries(kprov-bench-seed PRIVATE kprov_engine kprov_stores kprov_warnings)

# kprov-bench-execute: the GraphQL path of kprov serve without HTTP, for profiles (graphql.sh's
# queries through graphql::execute() over a seeded store).
add_executable(kprov-bench-execute bench/graphql_execute.cpp)
target_link_libraries(kprov-bench-execute PRIVATE kprov_api kprov_stores kprov_warnings)

# kprov-bench-sim: kprov-sim's CPU per request against N existing shoots and clusters; also the
# CI guard sim.cost_ratio (the cost at 2,000 clusters at most twice the cost at 200).
if(KPROV_BUILD_TESTS AND TARGET kprov-sim)
  add_executable(kprov-bench-sim bench/sim_cost.cpp)
  target_link_libraries(kprov-bench-sim PRIVATE kprov_test_support kprov_net_base64
    kprov_warnings CLI11::CLI11 PkgConfig::HTTPLIB nlohmann_json::nlohmann_json)
  target_include_directories(kprov-bench-sim PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(kprov-bench-sim PRIVATE KPROV_SIM_BINARY="$<TARGET_FILE:kprov-sim>")
  add_dependencies(kprov-bench-sim kprov-sim)
  add_test(NAME sim.cost_ratio
           COMMAND kprov-bench-sim --sizes 200,2000 --rounds 2 --min-cpu-seconds 0.25 --guard 2)
  set_tests_properties(sim.cost_ratio PROPERTIES LABELS "sim;guard" TIMEOUT 300)
endif()

# kprov-bench-save-claim: the store's CPU per worker pass, save and next claim as two
# transactions or as one (Store::save_progress_and_claim_next).
add_executable(kprov-bench-save-claim bench/save_claim.cpp)
target_link_libraries(kprov-bench-save-claim PRIVATE kprov_engine kprov_stores kprov_warnings)
