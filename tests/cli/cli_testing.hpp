#pragma once
// What the CLI's test files share: a run's outcome, the stores a suite runs on, the examples
// directory and the secret key the tests' stores are encrypted with.

#include <gtest/gtest.h>
#include <ostream>
#include <string>

namespace kprov::cli {

/// What a run of kprov (the binary or run() in this process) ended with.
struct Result {
    int code = -1;
    std::string out;
    std::string err;
};

/// The store a parameterized suite runs on.
enum class StoreKind { Sqlite, Postgres };

inline std::string store_name(const ::testing::TestParamInfo<StoreKind>& info) {
    return info.param == StoreKind::Sqlite ? "Sqlite" : "Postgres";
}

inline void PrintTo(StoreKind kind, std::ostream* os) {
    *os << (kind == StoreKind::Sqlite ? "SQLite" : "PostgreSQL");
}

inline const std::string k_examples = KPROV_SOURCE_DIR "/examples/";
inline const std::string k_secret_key = "0123456789abcdef0123456789abcdef";

} // namespace kprov::cli
