#include "stores/store_common.hpp"

#include <cstdio>

namespace kprov::stores {

std::string kubeconfig_context(const std::string& cluster_id) {
    return "cluster.kubeconfig:" + cluster_id;
}

std::string administrator_context(const std::string& cluster_id) {
    return "cluster_administrator.user_id:" + cluster_id;
}

std::string octal_mode(unsigned mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", mode & 07777);
    return text;
}

std::string join_domains(const std::vector<std::string>& domains) {
    std::string out;
    for (const auto& d : domains) {
        if (!out.empty())
            out += ',';
        out += d;
    }
    return out;
}

std::vector<std::string> split_domains(std::string_view joined) {
    std::vector<std::string> out;
    if (joined.empty())
        return out;
    std::size_t start = 0;
    while (true) {
        const auto comma = joined.find(',', start);
        out.emplace_back(joined.substr(start, comma - start));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return out;
}

} // namespace kprov::stores
