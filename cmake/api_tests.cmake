# Extra pieces of kprov_api and its tests (src/api/, tests/api/).
#
# Run as a script (cmake -DKPROV_SCHEMA_IN=... -DKPROV_SCHEMA_OUT=... -P api_tests.cmake), it
# writes the C++ file that embeds schemas/provisioner.graphql, so the binary carries its API.
if(KPROV_SCHEMA_OUT)
  if(EXISTS "${KPROV_SCHEMA_IN}")
    file(READ "${KPROV_SCHEMA_IN}" sdl)
  else()
    set(sdl "")
  endif()
  string(FIND "${sdl}" ")kprovsdl\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${KPROV_SCHEMA_IN} contains the raw-string delimiter")
  endif()
  set(body "// Generated from schemas/provisioner.graphql by cmake/api_tests.cmake: do not edit.\n")
  string(APPEND body "#include \"api/server.hpp\"\n\nnamespace kprov::api {\n\n")
  string(APPEND body "std::string_view provisioner_schema_sdl() {\n")
  string(APPEND body "    static constexpr std::string_view k_sdl = R\"kprovsdl(${sdl})kprovsdl\";\n")
  string(APPEND body "    return k_sdl;\n}\n\n} // namespace kprov::api\n")
  if(EXISTS "${KPROV_SCHEMA_OUT}")
    file(READ "${KPROV_SCHEMA_OUT}" old)
  endif()
  if(NOT "${old}" STREQUAL "${body}")
    file(WRITE "${KPROV_SCHEMA_OUT}" "${body}")
  endif()
  return()
endif()

if(TARGET kprov_api)
  set(KPROV_SCHEMA_FILE ${PROJECT_SOURCE_DIR}/schemas/provisioner.graphql)
  set(KPROV_EMBEDDED_SCHEMA ${PROJECT_BINARY_DIR}/src/api/embedded_schema.cpp)
  # Re-run cmake when the schema appears, so the command below then depends on it.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/schemas)
  set(schema_dependency)
  if(EXISTS ${KPROV_SCHEMA_FILE})
    set(schema_dependency ${KPROV_SCHEMA_FILE})
  endif()
  add_custom_command(
    OUTPUT ${KPROV_EMBEDDED_SCHEMA}
    COMMAND ${CMAKE_COMMAND} -DKPROV_SCHEMA_IN=${KPROV_SCHEMA_FILE}
            -DKPROV_SCHEMA_OUT=${KPROV_EMBEDDED_SCHEMA} -P ${CMAKE_CURRENT_LIST_FILE}
    DEPENDS ${schema_dependency} ${CMAKE_CURRENT_LIST_FILE}
    COMMENT "Embedding schemas/provisioner.graphql")
  target_sources(kprov_api PRIVATE ${KPROV_EMBEDDED_SCHEMA})
endif()

if(TARGET kprov_api_tests)
  # The black-box tests run the built kprov serve against kprov-sim.
  add_dependencies(kprov_api_tests kprov)
  # kprov_cli reads the example runtime files as the CLI does.
  target_link_libraries(kprov_api_tests PRIVATE kprov_cli PkgConfig::HTTPLIB OpenSSL::SSL
                        OpenSSL::Crypto Threads::Threads PkgConfig::PQXX)
  target_compile_definitions(kprov_api_tests PRIVATE PQXX_HAVE_OPTIONAL=1)
  if(TARGET kprov-sim)
    add_dependencies(kprov_api_tests kprov-sim)
    target_compile_definitions(kprov_api_tests PRIVATE
      KPROV_SIM_BINARY="$<TARGET_FILE:kprov-sim>")
  endif()
endif()
