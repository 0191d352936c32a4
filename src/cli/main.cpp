#include "cli/app.hpp"

#include <curl/curl.h>
#include <iostream>

int main(int argc, char** argv) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const int code = kprov::cli::run({argv + 1, argv + argc}, std::cout, std::cerr);
    curl_global_cleanup();
    return code;
}
