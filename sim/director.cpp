#include "director.hpp"

#include "graphql_matcher.hpp"

#include <algorithm>

namespace kprov::sim {

namespace {

const char* code_name(int code) {
    switch (code) {
    case 10:
        return "InternalError";
    case 11:
        return "UnknownError";
    case 20:
        return "NotFound";
    case 21:
        return "NotUnique";
    case 22:
        return "InvalidData";
    case 23:
        return "InsufficientScopes";
    case 24:
        return "TenantRequired";
    case 25:
        return "TenantNotFound";
    case 26:
        return "Unauthorized";
    case 27:
        return "InvalidOperation";
    default:
        return "UnknownError";
    }
}

/// A Director error for one field, as graphql-go reports it.
struct FieldError {
    int code;
    std::string message;
};

Json error_json(const std::string& path, int code, const std::string& message) {
    Json e = {{"message", message},
              {"extensions", {{"error_code", code}, {"error", code_name(code)}}}};
    if (!path.empty())
        e["path"] = Json::array({path});
    return e;
}

ApiResponse oauth_error(int status, const std::string& error, const std::string& description) {
    return ApiResponse::json(status, {{"error", error}, {"error_description", description}});
}

std::string form_value(const std::string& body, const std::string& key) {
    std::size_t pos = 0;
    while (pos <= body.size()) {
        std::size_t amp = body.find('&', pos);
        std::string pair =
            body.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
        std::size_t eq = pair.find('=');
        if (pair.substr(0, eq) == key) {
            std::string v = eq == std::string::npos ? "" : pair.substr(eq + 1);
            std::string out;
            for (std::size_t i = 0; i < v.size(); ++i) {
                if (v[i] == '+') {
                    out += ' ';
                } else if (v[i] == '%' && i + 2 < v.size()) {
                    out += static_cast<char>(std::stoi(v.substr(i + 1, 2), nullptr, 16));
                    i += 2;
                } else {
                    out += v[i];
                }
            }
            return out;
        }
        if (amp == std::string::npos)
            break;
        pos = amp + 1;
    }
    return "";
}

std::string string_arg(const Json& args, const std::string& key) {
    return args.contains(key) && args[key].is_string() ? args[key].get<std::string>() : "";
}

} // namespace

Director::Director(DirectorOptions opts)
    : m_opts(std::move(opts)) {}

ApiResponse Director::token(const ApiRequest& req) {
    ApiResponse out = issue_token(req);
    std::string auth = req.header("authorization");
    std::string id = form_value(req.body, "client_id");
    if (auth.rfind("Basic ", 0) == 0)
        if (auto decoded = base64_decode(auth.substr(6)))
            id = decoded->substr(0, decoded->find(':'));
    std::lock_guard lock(m_mu);
    record({{"kind", "token"}, {"clientId", id}, {"status", out.status}});
    return out;
}

ApiResponse Director::issue_token(const ApiRequest& req) {
    if (req.method != "POST")
        return oauth_error(405, "invalid_request", "use POST");
    std::string id, secret;
    std::string auth = req.header("authorization");
    if (auth.rfind("Basic ", 0) == 0) {
        auto decoded = base64_decode(auth.substr(6));
        if (!decoded || decoded->find(':') == std::string::npos)
            return oauth_error(401, "invalid_client", "malformed Basic credentials");
        id = decoded->substr(0, decoded->find(':'));
        secret = decoded->substr(decoded->find(':') + 1);
    } else {
        id = form_value(req.body, "client_id");
        secret = form_value(req.body, "client_secret");
    }
    if (id != m_opts.client_id || secret != m_opts.client_secret) {
        ApiResponse r = oauth_error(401, "invalid_client", "Client authentication failed");
        r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"kprov-sim\"");
        return r;
    }
    if (form_value(req.body, "grant_type") != "client_credentials")
        return oauth_error(400, "unsupported_grant_type",
                           "The authorization grant type is not supported: use client_credentials");
    std::string token = random_token(40);
    std::string scope = form_value(req.body, "scope");
    {
        std::lock_guard lock(m_mu);
        m_tokens[token] = Clock::now() + seconds_to_duration(m_opts.token_seconds);
    }
    Json body = {{"access_token", token},
                 {"expires_in", static_cast<long long>(m_opts.token_seconds)},
                 {"token_type", "bearer"}};
    if (!scope.empty())
        body["scope"] = scope;
    return ApiResponse::json(200, body);
}

ApiResponse Director::graphql(const ApiRequest& req) {
    std::string auth = req.header("authorization");
    {
        std::lock_guard lock(m_mu);
        std::string token = auth.rfind("Bearer ", 0) == 0 ? auth.substr(7) : "";
        auto it = m_tokens.find(token);
        if (it == m_tokens.end() || it->second < Clock::now())
            return ApiResponse::json(
                401, {{"errors", Json::array({error_json("", 26,
                                                         "Unauthorized: missing, unknown or "
                                                         "expired bearer token")})}});
    }
    if (req.method != "POST")
        return ApiResponse::json(405, {{"errors", Json::array({{{"message", "use POST"}}})}});
    Json body = Json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("query") || !body["query"].is_string())
        return ApiResponse::json(
            400,
            {{"errors", Json::array({{{"message", "the body must be JSON with a \"query\""}}})}});
    GqlOperation op;
    try {
        op =
            parse_graphql(body["query"].get<std::string>(), body.value("variables", Json::object()),
                          body.value("operationName", std::string()));
    } catch (const GqlSyntaxError& e) {
        return ApiResponse::json(422, {{"errors", Json::array({{{"message", e.what()}}})}});
    }
    Json data = Json::object();
    Json errors = Json::array();
    std::string tenant = req.header("tenant");
    std::lock_guard lock(m_mu);
    for (const auto& f : op.fields) {
        bool is_mutation_field = f.name != "runtime" && f.name != "runtimes";
        if ((op.type == "mutation") != is_mutation_field) {
            errors.push_back(
                {{"message", "Cannot query field \"" + f.name + "\" on type \"" +
                                 (op.type == "mutation" ? "Mutation" : "Query") + "\"."}});
            data[f.response_key] = nullptr;
            continue;
        }
        const std::size_t errors_before = errors.size();
        data[f.response_key] = run_field(tenant, f, errors);
        int code = 0;
        if (errors.size() > errors_before && errors.back().contains("extensions"))
            code = errors.back()["extensions"].value("error_code", 0);
        record({{"kind", "graphql"},
                {"operation", f.name},
                {"tenant", tenant},
                {"args", f.args},
                {"errorCode", code}});
    }
    if (const int status = take_lost_answer(op.fields))
        return ApiResponse::json(
            status,
            {{"errors", Json::array({{{"message", "kprov-sim: the answer was dropped "
                                                  "after the work was done (injected)"}}})}});
    Json out = {{"data", data}};
    if (!errors.empty())
        out["errors"] = errors;
    return ApiResponse::json(200, out);
}

Json Director::run_field(const std::string& tenant, const GqlField& f, Json& errors) {
    auto err = [&](int code, const std::string& message) {
        errors.push_back(error_json(f.response_key, code, message));
        return Json();
    };
    for (auto it = m_injected.begin(); it != m_injected.end(); ++it) {
        if ((!it->operation.empty() && it->operation != f.name) || it->http_status != 0)
            continue;
        InjectedError e = *it;
        if (--it->count <= 0)
            m_injected.erase(it);
        return err(e.code, e.message);
    }
    if (tenant.empty())
        return err(24, "Tenant is required");
    const Json& a = f.args;
    if (f.name == "runtimes")
        return runtime_page(tenant, f, errors);
    if (f.name == "registerRuntime" || f.name == "updateRuntime") {
        Json in = a.value("in", Json());
        if (!in.is_object() || string_arg(in, "name").empty())
            return err(22, "Invalid data RuntimeInput [name=cannot be blank]");
        if (in.contains("labels") && !in["labels"].is_object() && !in["labels"].is_null())
            return err(22, "Invalid data RuntimeInput [labels=must be an object]");
        std::string cond = string_arg(in, "statusCondition");
        if (!cond.empty() && cond != "INITIAL" && cond != "PROVISIONING" && cond != "CONNECTED" &&
            cond != "FAILED")
            return err(22,
                       "Invalid data RuntimeInput [statusCondition=invalid value " + cond + "]");
        Runtime* rt = nullptr;
        if (f.name == "registerRuntime") {
            for (const auto& [id, r] : m_runtimes)
                if (r.tenant == tenant && r.name == in["name"])
                    return err(21, "Object is not unique [object=runtime]: a runtime named \"" +
                                       r.name + "\" already exists");
            Runtime n;
            n.id = random_uuid();
            n.tenant = tenant;
            n.created_at = rfc3339(Clock::now());
            rt = &(m_runtimes[n.id] = n);
        } else {
            auto it = m_runtimes.find(string_arg(a, "id"));
            if (it == m_runtimes.end() || it->second.tenant != tenant)
                return err(20, "Object not found [object=runtime]");
            rt = &it->second;
        }
        rt->name = in["name"].get<std::string>();
        rt->description = string_arg(in, "description");
        rt->labels =
            in.contains("labels") && in["labels"].is_object() ? in["labels"] : Json::object();
        if (!cond.empty())
            rt->status_condition = cond;
        return render(*rt, f.selection);
    }
    if (f.name == "runtime" || f.name == "unregisterRuntime" ||
        f.name == "requestOneTimeTokenForRuntime") {
        auto it = m_runtimes.find(string_arg(a, "id"));
        bool found = it != m_runtimes.end() && it->second.tenant == tenant;
        if (f.name == "runtime")
            return found ? render(it->second, f.selection) : Json();
        if (!found)
            return err(20, "Object not found [object=runtime]");
        if (f.name == "unregisterRuntime") {
            Json out = render(it->second, f.selection);
            m_runtimes.erase(it);
            return out;
        }
        Json tok = Json::object();
        for (const auto& s : f.selection) {
            if (s == "token")
                tok[s] = random_token(32);
            else if (s == "connectorURL")
                tok[s] = "https://connector.kprov-sim.local/connector/graphql";
            else if (s == "__typename")
                tok[s] = "OneTimeTokenForRuntime";
            else
                tok[s] = nullptr;
        }
        return tok;
    }
    return err(27, "Cannot query field \"" + f.name +
                       "\": kprov-sim's Director serves registerRuntime, runtime, runtimes, "
                       "updateRuntime, requestOneTimeTokenForRuntime and unregisterRuntime");
}

Json Director::render(const Runtime& rt, const std::vector<std::string>& selection) const {
    Json full = {{"id", rt.id},
                 {"name", rt.name},
                 {"description", rt.description},
                 {"labels", rt.labels},
                 {"status", {{"condition", rt.status_condition}, {"timestamp", rt.created_at}}},
                 {"__typename", "Runtime"}};
    if (selection.empty())
        return full;
    Json out = Json::object();
    for (const auto& s : selection)
        out[s] = full.contains(s) ? full[s] : Json();
    return out;
}

void Director::inject_error(const std::string& operation, int code, const std::string& message,
                            int count, int http_status) {
    std::lock_guard lock(m_mu);
    m_injected.push_back({operation, code, message.empty() ? std::string(code_name(code)) : message,
                          count > 0 ? count : 1, http_status});
}

int Director::take_lost_answer(const std::vector<GqlField>& fields) {
    for (auto it = m_injected.begin(); it != m_injected.end(); ++it) {
        if (it->http_status == 0)
            continue;
        const bool matches = std::any_of(fields.begin(), fields.end(), [&](const GqlField& f) {
            return it->operation.empty() || it->operation == f.name;
        });
        if (!matches)
            continue;
        const int status = it->http_status;
        if (--it->count <= 0)
            m_injected.erase(it);
        return status;
    }
    return 0;
}

namespace {

// Compass's label filter: `key`, and optionally `query`. Only the old string-equality form of
// the query, a JSON string ("\"value\""), is read; a label that is a list matches when it
// holds the value. Returns an error message for a filter it cannot read, else "".
std::string label_filter_problem(const Json& filter) {
    if (!filter.is_array())
        return "filter must be a list of LabelFilter {key, query}";
    for (const auto& f : filter) {
        if (!f.is_object() || !f.contains("key") || !f["key"].is_string())
            return "every LabelFilter needs a string key";
        if (!f.contains("query") || f["query"].is_null())
            continue;
        const Json q = f["query"].is_string()
                           ? Json::parse(f["query"].get<std::string>(), nullptr, false)
                           : Json();
        if (!q.is_string())
            return "kprov-sim's Director reads only label filter queries of the form "
                   "\"\\\"value\\\"\" (string equality); JSON path queries such as "
                   "$[*] ? (@ == \"value\") are not supported";
    }
    return "";
}

bool labels_match(const Json& labels, const Json& filter) {
    for (const auto& f : filter) {
        const std::string key = f["key"].get<std::string>();
        if (!labels.contains(key))
            return false;
        if (!f.contains("query") || f["query"].is_null())
            continue;
        const Json want = Json::parse(f["query"].get<std::string>());
        const Json& have = labels[key];
        const bool found = have.is_array() ? std::find(have.begin(), have.end(), want) != have.end()
                                           : have == want;
        if (!found)
            return false;
    }
    return true;
}

} // namespace

Json Director::runtime_page(const std::string& tenant, const GqlField& f, Json& errors) const {
    auto err = [&](int code, const std::string& message) {
        errors.push_back(error_json(f.response_key, code, message));
        return Json();
    };
    const Json filter =
        f.args.contains("filter") && !f.args["filter"].is_null() ? f.args["filter"] : Json::array();
    if (const std::string problem = label_filter_problem(filter); !problem.empty())
        return err(22, "Invalid data LabelFilter [" + problem + "]");
    constexpr long long k_default_page = 200;
    const Json first = f.args.value("first", Json());
    if (!first.is_null() && (!first.is_number_integer() || first.get<long long>() < 1))
        return err(22, "Invalid data [first=must be a positive integer]");
    const long long page_size = first.is_null() ? k_default_page : first.get<long long>();
    // The cursor is the offset of the page's first item, as a decimal string.
    long long offset = 0;
    if (const std::string after = string_arg(f.args, "after"); !after.empty()) {
        if (after.find_first_not_of("0123456789") != std::string::npos || after.size() > 12)
            return err(22, "Invalid data [after=not a cursor this Director gave]");
        offset = std::stoll(after);
    }
    std::vector<const Runtime*> matching;
    for (const auto& [id, rt] : m_runtimes)
        if (rt.tenant == tenant && labels_match(rt.labels, filter))
            matching.push_back(&rt);
    const auto total = static_cast<long long>(matching.size());
    const long long begin = std::min(offset, total);
    const long long end = std::min(total, begin + page_size);
    Json out = Json::object();
    for (const auto& child : f.children) {
        if (child.name == "data") {
            Json list = Json::array();
            for (long long i = begin; i < end; ++i)
                list.push_back(render(*matching[static_cast<std::size_t>(i)], child.selection));
            out[child.response_key] = list;
        } else if (child.name == "pageInfo") {
            const Json info = {{"startCursor", std::to_string(begin)},
                               {"endCursor", std::to_string(end)},
                               {"hasNextPage", end < total},
                               {"__typename", "PageInfo"}};
            Json selected = Json::object();
            for (const auto& s : child.selection)
                selected[s] = info.contains(s) ? info[s] : Json();
            out[child.response_key] = selected;
        } else if (child.name == "totalCount") {
            out[child.response_key] = total;
        } else if (child.name == "__typename") {
            out[child.response_key] = "RuntimePage";
        } else {
            out[child.response_key] = nullptr;
        }
    }
    return out;
}

Json Director::to_json() const {
    std::lock_guard lock(m_mu);
    Json list = Json::array();
    for (const auto& [id, rt] : m_runtimes)
        list.push_back({{"id", rt.id},
                        {"tenant", rt.tenant},
                        {"name", rt.name},
                        {"description", rt.description},
                        {"labels", rt.labels},
                        {"statusCondition", rt.status_condition}});
    return {{"runtimes", list}, {"pendingErrors", m_injected.size()}};
}

void Director::reset() {
    std::lock_guard lock(m_mu);
    m_runtimes.clear();
    m_injected.clear();
    m_calls.clear();
}

void Director::record(Json call) {
    constexpr std::size_t k_max_calls = 10000;
    if (m_calls.size() >= k_max_calls)
        m_calls.erase(m_calls.begin());
    m_calls.push_back(std::move(call));
}

Json Director::calls_json() const {
    std::lock_guard lock(m_mu);
    return {{"calls", m_calls}};
}

} // namespace kprov::sim
