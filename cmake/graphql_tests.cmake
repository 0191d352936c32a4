# Extra pieces of the GraphQL suite (tests/graphql/) and its fuzz target (tests/fuzz/).

# libFuzzer target: configure a separate build directory with clang++ and -DKPROV_FUZZ=ON
# (tests/fuzz/README.md). kprov_graphql gets coverage instrumentation; the target adds ASan and
# UBSan.
option(KPROV_FUZZ "Build the libFuzzer target kprov_graphql_fuzz (needs clang++)" OFF)
if(KPROV_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "KPROV_FUZZ needs clang++ (-DCMAKE_CXX_COMPILER=clang++)")
  endif()
  set(KPROV_FUZZ_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
      -fno-omit-frame-pointer)
  target_compile_options(kprov_graphql PRIVATE -fsanitize=fuzzer-no-link ${KPROV_FUZZ_FLAGS})
  add_executable(kprov_graphql_fuzz tests/fuzz/graphql_fuzz.cpp)
  target_compile_options(kprov_graphql_fuzz PRIVATE -fsanitize=fuzzer ${KPROV_FUZZ_FLAGS})
  target_link_options(kprov_graphql_fuzz PRIVATE -fsanitize=fuzzer ${KPROV_FUZZ_FLAGS})
  target_link_libraries(kprov_graphql_fuzz PRIVATE kprov_graphql kprov_warnings
    nlohmann_json::nlohmann_json)
  target_compile_definitions(kprov_graphql_fuzz PRIVATE KPROV_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()

# A fuzz target built from its one source file under test, so that only it is instrumented.
function(kprov_single_source_fuzz target fuzz_source source)
  add_executable(${target} ${fuzz_source} ${source})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer ${KPROV_FUZZ_FLAGS})
  target_link_options(${target} PRIVATE -fsanitize=fuzzer ${KPROV_FUZZ_FLAGS})
  target_link_libraries(${target} PRIVATE kprov_warnings nlohmann_json::nlohmann_json)
endfunction()

# The watch's JSON projection (src/gardener/json_projection.cpp) against nlohmann's parser, and
# the -l selector parser (src/cli/label_selector.cpp).
if(KPROV_FUZZ)
  kprov_single_source_fuzz(kprov_json_projection_fuzz tests/fuzz/json_projection_fuzz.cpp
    src/gardener/json_projection.cpp)
  kprov_single_source_fuzz(kprov_label_selector_fuzz tests/fuzz/label_selector_fuzz.cpp
    src/cli/label_selector.cpp)
  kprov_single_source_fuzz(kprov_yaml_scalars_fuzz tests/fuzz/yaml_scalars_fuzz.cpp
    src/yaml/yaml_scalars.cpp)
  # The one YAML reader (src/yaml/yaml_reader.cpp) and the bounded check (yaml_check.cpp, with
  # the comma rule of input_limits.cpp), all of src/yaml/ instrumented.
  kprov_single_source_fuzz(kprov_yaml_bounds_fuzz tests/fuzz/yaml_bounds_fuzz.cpp
    src/yaml/yaml_reader.cpp)
  target_sources(kprov_yaml_bounds_fuzz PRIVATE src/yaml/yaml_check.cpp src/yaml/event_cost.cpp
    src/yaml/yaml_scalars.cpp src/engine/input/input_limits.cpp src/engine/error.cpp)
  target_link_libraries(kprov_yaml_bounds_fuzz PRIVATE PkgConfig::LIBYAML)
endif()

# The installation-cr backend's readers of remote input (tests/fuzz/kyma_manifest_fuzz.cpp):
# the release's installer YAML and the Installation CR.
if(KPROV_FUZZ)
  add_executable(kprov_kyma_manifest_fuzz tests/fuzz/kyma_manifest_fuzz.cpp)
  target_compile_options(kprov_kyma_manifest_fuzz PRIVATE -fsanitize=fuzzer ${KPROV_FUZZ_FLAGS})
  target_link_options(kprov_kyma_manifest_fuzz PRIVATE -fsanitize=fuzzer ${KPROV_FUZZ_FLAGS})
  target_link_libraries(kprov_kyma_manifest_fuzz PRIVATE kprov_kyma kprov_warnings
    nlohmann_json::nlohmann_json)
endif()

# What kprov reads from users' files (tests/fuzz/README.md): runtime and upgrade files through
# the CLI's reader and the engine's validation (runtime_file_fuzz), and kubeconfigs in both
# origins (kubeconfig_fuzz). The readers' sources are compiled into the targets, and the engine
# is instrumented, so that coverage guides the fuzzer through them.
if(KPROV_FUZZ)
  target_compile_options(kprov_engine PRIVATE -fsanitize=fuzzer-no-link ${KPROV_FUZZ_FLAGS})
  add_executable(kprov_runtime_file_fuzz tests/fuzz/runtime_file_fuzz.cpp
    src/cli/runtime_file.cpp src/cli/yaml_output.cpp)
  add_executable(kprov_kubeconfig_fuzz tests/fuzz/kubeconfig_fuzz.cpp
    src/gardener/kubeconfig.cpp)
  target_link_libraries(kprov_kubeconfig_fuzz PRIVATE kprov_net_base64)
  foreach(target kprov_runtime_file_fuzz kprov_kubeconfig_fuzz)
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer ${KPROV_FUZZ_FLAGS})
    target_link_options(${target} PRIVATE -fsanitize=fuzzer ${KPROV_FUZZ_FLAGS})
    target_link_libraries(${target} PRIVATE kprov_engine kprov_yaml kprov_warnings yaml-cpp
      nlohmann_json::nlohmann_json)
    # The one YAML reader instrumented too (kprov_yaml is not).
    target_sources(${target} PRIVATE src/yaml/yaml_reader.cpp)
  endforeach()
endif()

