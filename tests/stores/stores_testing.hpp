#pragma once
// What the stores' test files share: the secret key their stores are encrypted with, a file's
// bytes, an exception's message, a provisioning operation and a statement run on PostgreSQL.

#include "engine/model.hpp"
#include "support/store_fixtures.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <pqxx/pqxx>
#include <sstream>
#include <string>

namespace kprov::stores {

inline const std::string k_key = "0123456789abcdef0123456789abcdef";

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The message of the E that `action` throws; a failure (and "") if it throws none.
template <class E, class F> std::string message_of(F&& action) {
    try {
        action();
    } catch (const E& e) {
        return e.what();
    }
    ADD_FAILURE() << "no exception was thrown";
    return {};
}

/// A provisioning operation of `runtime_id`, started at `start`.
inline engine::Operation provisioning(const std::string& runtime_id,
                                      Timestamp start = kprov::testing::k_t0) {
    return kprov::testing::new_operation(runtime_id, engine::OperationType::Provision, start);
}

/// Runs `statement` on the database at `url` in a transaction of its own.
inline pqxx::result sql(const std::string& url, const std::string& statement) {
    pqxx::connection c{url};
    pqxx::work tx{c};
    auto r = tx.exec(statement);
    tx.commit();
    return r;
}

} // namespace kprov::stores
