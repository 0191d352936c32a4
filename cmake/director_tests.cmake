# Extra pieces of kprov_director_tests (tests/director/): the store and the Gardener client for
# the provisioning-with-registration suite, and the kprov-sim binary it runs against.
if(TARGET kprov_director_tests)
  target_link_libraries(kprov_director_tests PRIVATE kprov_stores kprov_gardener spdlog::spdlog
    Threads::Threads)
  if(TARGET kprov-sim)
    add_dependencies(kprov_director_tests kprov-sim)
    target_compile_definitions(kprov_director_tests PRIVATE
      KPROV_SIM_BINARY="$<TARGET_FILE:kprov-sim>")
  endif()
endif()
# The command-level test (cli_registration_test.cpp) runs kprov in-process.
if(TARGET kprov_director_tests)
  target_link_libraries(kprov_director_tests PRIVATE kprov_cli)
endif()
# The daemon test (daemon_logs_test.cpp) reads watch's /metrics over HTTP.
if(TARGET kprov_director_tests)
  target_link_libraries(kprov_director_tests PRIVATE PkgConfig::HTTPLIB)
endif()
