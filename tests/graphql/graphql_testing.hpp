#pragma once
// Shared by the GraphQL suites: the provisioner schema from the source tree and a one-call way
// to run a document against it.

#include "api/graphql/graphql.hpp"

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kprov::api::graphql::testing {

inline std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::string provisioner_sdl() {
    return read_text_file(std::string(KPROV_SOURCE_DIR) + "/schemas/provisioner.graphql");
}

inline const Schema& provisioner_schema() {
    static const std::shared_ptr<const Schema> schema = load_schema(provisioner_sdl());
    return *schema;
}

inline Response run(const Schema& schema, const Resolvers& resolvers, const std::string& query,
                    nlohmann::json variables = nlohmann::json::object(),
                    std::string operation_name = {}, bool allow_mutations = true) {
    Request request;
    request.query = query;
    request.variables = std::move(variables);
    request.operation_name = std::move(operation_name);
    request.allow_mutations = allow_mutations;
    std::any state;
    return execute(schema, resolvers, request, state);
}

} // namespace kprov::api::graphql::testing
