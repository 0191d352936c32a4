# Extra pieces of kprov_gardener_tests (tests/gardener/): the HTTPS test server (cpp-httplib, with
# OpenSSL), spdlog for capturing the client's log lines, and the kprov-sim binary for the
# integration suite when the simulator target exists.
if(TARGET kprov_gardener_tests)
  # The Kyma installer's and KCP client's tests (kyma_*_test.cpp) stay beside the Kubernetes
  # client's fakes they share, and link src/kyma/'s library.
  target_link_libraries(kprov_gardener_tests PRIVATE kprov_kyma PkgConfig::HTTPLIB OpenSSL::SSL
    OpenSSL::Crypto spdlog::spdlog Threads::Threads)
  if(TARGET kprov-sim)
    add_dependencies(kprov_gardener_tests kprov-sim)
    target_compile_definitions(kprov_gardener_tests PRIVATE
      KPROV_SIM_BINARY="$<TARGET_FILE:kprov-sim>")
  endif()
endif()
