// The playground on "/": one self-contained page (no CDN, no fonts, no frameworks) so that it
// works on air-gapped landscapes. It posts the query, variables and headers to the endpoint
// and shows the answer.

#include "api/server.hpp"

namespace kprov::api {
namespace {

constexpr std::string_view k_page = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kprov GraphQL playground</title>
<style>
body { font-family: sans-serif; margin: 0; display: flex; flex-direction: column; height: 100vh; }
header { background: #0b74de; color: #fff; padding: 8px 12px; display: flex; gap: 12px;
         align-items: center; flex-wrap: wrap; }
header input { padding: 4px; }
main { flex: 1; display: flex; min-height: 0; }
section { flex: 1; display: flex; flex-direction: column; padding: 8px; min-width: 0; }
textarea, pre { flex: 1; font-family: monospace; font-size: 13px; margin: 4px 0;
                border: 1px solid #ccc; padding: 6px; overflow: auto; white-space: pre; }
#variables { flex: 0 0 120px; }
button { padding: 6px 16px; font-weight: bold; }
label { font-size: 13px; }
</style>
</head>
<body>
<header>
  <strong>kprov</strong>
  <label>Tenant <input id="tenant" size="18"></label>
  <label>Sub-Account <input id="subaccount" size="18"></label>
  <label>Bearer token <input id="token" type="password" size="18"></label>
  <button id="run" title="Ctrl+Enter">Run</button>
  <button id="schema">Schema</button>
</header>
<main>
  <section>
    <label for="query">Query</label>
    <textarea id="query" spellcheck="false">query Status($id: String!) {
  runtimeStatus(id: $id) {
    lastOperationStatus { id operation state message lastError { errMessage reason component } }
    runtimeConfiguration { clusterConfig { name provider region kubernetesVersion } }
  }
}</textarea>
    <label for="variables">Variables (JSON)</label>
    <textarea id="variables" spellcheck="false">{"id": ""}</textarea>
  </section>
  <section>
    <label for="result">Result</label>
    <pre id="result"></pre>
  </section>
</main>
<script>
(function () {
  var endpoint = "@ENDPOINT@";
  var $ = function (id) { return document.getElementById(id); };
  ["tenant", "subaccount"].forEach(function (id) {
    $(id).value = localStorage.getItem("kprov." + id) || "";
  });
  function post(query, variables) {
    localStorage.setItem("kprov.tenant", $("tenant").value);
    localStorage.setItem("kprov.subaccount", $("subaccount").value);
    var headers = { "Content-Type": "application/json" };
    if ($("tenant").value) headers["Tenant"] = $("tenant").value;
    if ($("subaccount").value) headers["Sub-Account"] = $("subaccount").value;
    if ($("token").value) headers["Authorization"] = "Bearer " + $("token").value;
    $("result").textContent = "...";
    return fetch(endpoint, { method: "POST", headers: headers,
                             body: JSON.stringify({ query: query, variables: variables }) })
      .then(function (r) {
        return r.text().then(function (t) {
          try { t = JSON.stringify(JSON.parse(t), null, 2); } catch (e) {}
          $("result").textContent = "HTTP " + r.status + "\n" + t;
        });
      })
      .catch(function (e) { $("result").textContent = String(e); });
  }
  function run() {
    var variables = {};
    var text = $("variables").value.trim();
    if (text) {
      try { variables = JSON.parse(text); }
      catch (e) { $("result").textContent = "Variables are not JSON: " + e; return; }
    }
    post($("query").value, variables);
  }
  $("run").onclick = run;
  $("schema").onclick = function () {
    post("{ __schema { types { kind name fields { name type { kind name ofType { kind name " +
         "ofType { kind name ofType { kind name } } } } } } } }", {});
  };
  document.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) run();
  });
})();
</script>
</body>
</html>
)html";

} // namespace

std::string playground_page(const std::string& endpoint) {
    // The endpoint comes from configuration (a path); escape what could end the JS string.
    std::string escaped;
    for (const char c : endpoint) {
        if (c == '"' || c == '\\' || c == '<' || c == '>')
            escaped += "\\x" + std::string(c == '"'    ? "22"
                                           : c == '\\' ? "5c"
                                           : c == '<'  ? "3c"
                                                       : "3e");
        else
            escaped += c;
    }
    std::string page(k_page);
    const std::string marker = "@ENDPOINT@";
    page.replace(page.find(marker), marker.size(), escaped);
    return page;
}

} // namespace kprov::api
