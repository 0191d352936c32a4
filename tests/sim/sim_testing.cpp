#include "sim_testing.hpp"

#include "support/aws_shoot.hpp"

#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace kprov::sim::testing {

std::string Resp::header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
}

Http::Http(const std::string& url, std::string token, const std::string& ca_file,
           const std::string& cert_file, const std::string& key_file)
    : m_token(std::move(token)) {
    m_client = cert_file.empty() ? std::make_unique<httplib::Client>(url)
                                 : std::make_unique<httplib::Client>(url, cert_file, key_file);
    if (!ca_file.empty())
        m_client->set_ca_cert_path(ca_file.c_str());
    m_client->enable_server_certificate_verification(true);
    m_client->set_tcp_nodelay(true);
    m_client->set_read_timeout(10, 0);
}

httplib::Headers Http::headers(const httplib::Headers& extra) const {
    httplib::Headers h = extra;
    if (!m_token.empty())
        h.emplace("Authorization", "Bearer " + m_token);
    return h;
}

Resp Http::convert(const httplib::Result& r) {
    Resp out;
    if (!r)
        return out;
    out.status = r->status;
    out.body = r->body;
    out.headers = r->headers;
    out.json = Json::parse(r->body, nullptr, false);
    if (out.json.is_discarded())
        out.json = nullptr;
    return out;
}

Resp Http::get(const std::string& path, const httplib::Headers& extra) {
    return convert(m_client->Get(path, headers(extra)));
}

Resp Http::post(const std::string& path, const std::string& body, const std::string& content_type,
                const httplib::Headers& extra) {
    return convert(m_client->Post(path, headers(extra), body, content_type));
}

Resp Http::put(const std::string& path, const std::string& body) {
    return convert(m_client->Put(path, headers({}), body, "application/json"));
}

Resp Http::patch(const std::string& path, const std::string& body,
                 const std::string& content_type) {
    return convert(m_client->Patch(path, headers({}), body, content_type));
}

Resp Http::del(const std::string& path) {
    return convert(m_client->Delete(path, headers({})));
}

SimOptions fast_options() {
    SimOptions o;
    o.lifecycle.create_seconds = 0.2;
    o.lifecycle.reconcile_seconds = 0.1;
    o.lifecycle.delete_seconds = 0.1;
    o.lifecycle.hibernate_seconds = 0.1;
    o.token = "test-token";
    o.project = "dev";
    o.bookmark_seconds = 0.2;
    o.threads = 16;
    o.random_seed = 42;
    return o;
}

SimFixture::SimFixture(SimOptions opts)
    : sim(std::make_unique<Simulator>(opts)) {
    sim->start();
    http = std::make_unique<Http>(sim->url(), sim->token());
}

SimFixture::~SimFixture() {
    http.reset();
    sim->stop();
}

std::string SimFixture::shoots(const std::string& ns) const {
    return "/apis/core.gardener.cloud/v1beta1/namespaces/" + ns + "/shoots";
}

std::string SimFixture::shoot(const std::string& name, const std::string& ns) const {
    return shoots(ns) + "/" + name;
}

Json shoot_body(const std::string& name, const std::string& ns) {
    kprov::testing::AwsShootOptions options;
    options.annotations = {{"kcp.provisioner.kyma-project.io/runtime-id", "rt-1"}};
    return kprov::testing::aws_shoot(name, ns, options);
}

Json legacy_shoot_body(const std::string& name, const std::string& ns) {
    Json s = shoot_body(name, ns);
    s["spec"].erase("cloudProfile");
    s["spec"].erase("credentialsBindingName");
    s["spec"]["cloudProfileName"] = "aws";
    s["spec"]["secretBindingName"] = "legacy-aws";
    s["spec"]["kubernetes"]["version"] = "1.33.9"; // Gardener refuses both names from 1.34 on
    return s;
}

Json legacy_secret_binding(const std::string& ns) {
    return {{"apiVersion", "core.gardener.cloud/v1beta1"},
            {"kind", "SecretBinding"},
            {"metadata", {{"name", "legacy-aws"}, {"namespace", ns}}},
            {"provider", {{"type", "aws"}}},
            {"secretRef", {{"name", "aws-kyma-dev"}, {"namespace", ns}}}};
}

bool eventually(const std::function<bool()>& pred, double seconds) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(seconds));
    while (true) {
        if (pred())
            return true;
        if (std::chrono::steady_clock::now() > deadline)
            return pred();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

std::string yaml_value(const std::string& yaml, const std::string& key) {
    std::size_t pos = yaml.find(key + ": ");
    if (pos == std::string::npos)
        return "";
    std::size_t start = pos + key.size() + 2;
    std::string v = yaml.substr(start, yaml.find('\n', start) - start);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"')
        v = v.substr(1, v.size() - 2);
    return v;
}

WatchCollector::WatchCollector(const std::string& url, const std::string& token,
                               const std::string& path) {
    m_client = std::make_unique<httplib::Client>(url);
    m_client->set_read_timeout(30, 0);
    m_thread = std::thread([this, token, path] {
        httplib::Client& client = *m_client;
        httplib::Headers h;
        if (!token.empty())
            h.emplace("Authorization", "Bearer " + token);
        auto res = client.Get(path, h, [this](const char* data, std::size_t n) {
            std::lock_guard lock(m_mu);
            m_buffer.append(data, n);
            return !m_stop.load();
        });
        if (res)
            m_status = res->status;
        m_finished = true;
    });
}

WatchCollector::~WatchCollector() {
    m_stop = true;
    m_client->stop(); // ends a read that is waiting for the next event
    if (m_thread.joinable())
        m_thread.join();
}

std::vector<Json> WatchCollector::events() {
    std::lock_guard lock(m_mu);
    std::vector<Json> out;
    std::size_t start = 0;
    while (true) {
        std::size_t nl = m_buffer.find('\n', start);
        if (nl == std::string::npos)
            break;
        Json e = Json::parse(m_buffer.substr(start, nl - start), nullptr, false);
        if (!e.is_discarded())
            out.push_back(e);
        start = nl + 1;
    }
    return out;
}

bool WatchCollector::wait_for(const std::function<bool(const Json&)>& pred, double seconds) {
    return eventually(
        [&] {
            for (const auto& e : events())
                if (pred(e))
                    return true;
            return false;
        },
        seconds);
}

std::string temp_dir() {
    std::string tmpl = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : "/tmp") +
                       "/kprov-sim-test.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
        throw std::runtime_error("mkdtemp failed");
    return buf.data();
}

std::string temp_file(const std::string& name, const std::string& content) {
    std::string path = temp_dir() + "/" + name;
    std::ofstream(path) << content;
    return path;
}

} // namespace kprov::sim::testing
