#include "cli/help_text.hpp"

#include <algorithm>
#include <map>

namespace kprov::cli {
namespace {

struct ExitCodeText {
    int code;
    const char* meaning;
};

constexpr ExitCodeText k_exit_codes[] = {
    {0, "success"},
    {1, "error"},
    {2, "usage error (a missing or unreadable -f file too)"},
    {3, "the operation failed"},
    {4, "--timeout reached (Gardener goes on; `kprov wait OPERATION_ID`, or any `kprov watch` or "
        "`kprov serve` on this store, finishes the operation's bookkeeping)"},
    {5, "refused: another operation of that runtime is in progress (cancel: another process "
        "holds the operation)"},
    {6, "kprov diff, kprov adopt --dry-run: differences found"},
    {130, "interrupted (SIGINT) while waiting (as for 4)"},
    {143, "terminated (SIGTERM) while waiting (as for 4)"},
};

// What --detailed-exitcode makes of 2 (terraform's convention).
constexpr const char* k_changes =
    "usage error (a missing or unreadable -f file too); with --detailed-exitcode: there are "
    "changes (every error, usage errors included, then exits 1)";

struct Help {
    std::vector<std::string> examples;
    std::vector<int> exit_codes;
};

const std::vector<int> k_operation_codes = {0, 1, 2, 3, 4, 5, 130, 143};
const std::vector<int> k_read_codes = {0, 1, 2};

const std::map<std::string, Help, std::less<>>& helps() {
    // Ids as kprov prints them; shoot and file names as in examples/.
    static const std::map<std::string, Help, std::less<>> k_helps = {
        {"provision",
         {{"kprov provision -f examples/gcp.yaml --wait",
           "kprov provision -f examples/aws.yaml --dry-run",
           "kprov provision -f rt.json -o name --tenant ga-1 --sub-account sa-1"},
          {0, 1, 2, 3, 4, 130, 143}}},
        {"deprovision",
         {{"kprov deprovision 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10",
           "kprov deprovision 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 --yes --wait --timeout 30m",
           "kprov deprovision -l team=ci,purpose=e2e --dry-run"},
          k_operation_codes}},
        {"upgrade-shoot",
         {{"kprov upgrade-shoot 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -f examples/upgrade.yaml "
           "--dry-run",
           "kprov upgrade-shoot 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -f examples/upgrade.yaml "
           "--dry-run --detailed-exitcode",
           "kprov upgrade-shoot 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -f examples/upgrade.yaml "
           "--wait",
           "kprov upgrade-shoot -l team=ci -f examples/upgrade.yaml --wait -o json"},
          k_operation_codes}},
        {"hibernate",
         {{"kprov hibernate 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10",
           "kprov hibernate 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 --wait --timeout 15m",
           "kprov hibernate -l team=ci --wait"},
          k_operation_codes}},
        {"wake-up",
         {{"kprov wake-up 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 --wait",
           "kprov wake-up 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -o json",
           "kprov wake-up -l 'team in (ci,qa)' --dry-run"},
          k_operation_codes}},
        {"upgrade-kyma",
         {{"kprov upgrade-kyma 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -f examples/kyma.yaml",
           "kprov upgrade-kyma 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -f examples/kyma.yaml "
           "--wait"},
          k_operation_codes}},
        {"rollback-kyma",
         {{"kprov rollback-kyma 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10",
           "kprov rollback-kyma 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -o json"},
          {0, 1, 2, 5}}},
        {"protect",
         {{"kprov protect 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10",
           "kprov protect 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -o json",
           "kprov protect -l env=prod --dry-run"},
          k_read_codes}},
        {"unprotect",
         {{"kprov unprotect 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10",
           "kprov unprotect 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -o json",
           "kprov unprotect -l team=ci"},
          k_read_codes}},
        {"apply",
         {{"kprov apply -f runtimes/ --wait",
           "kprov apply -f examples/aws.yaml -f examples/gcp.yaml --dry-run",
           "kprov apply -f runtimes/ --prune -l team=ci --wait --timeout 45m -o json"},
          {0, 1, 2, 3, 4, 5, 130, 143}}},
        {"diff",
         {{"kprov diff 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10", "kprov diff --all -o json",
           "kprov diff -f runtimes/"},
          {0, 1, 2, 6}}},
        {"adopt",
         {{"kprov adopt my-shoot --dry-run > my-shoot.yaml",
           "kprov adopt my-shoot -f my-shoot.yaml", "kprov adopt my-shoot -o json"},
          {0, 1, 2, 6}}},
        {"status",
         {{"kprov status 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10",
           "kprov status 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 --live",
           "kprov status 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -o json | jq "
           ".lastOperationStatus.stage"},
          k_read_codes}},
        {"operation",
         {{"kprov operation b1e0f5a2-7c3d-4e8f-a9b6-2c4d6e8f0a13",
           "kprov operation b1e0f5a2-7c3d-4e8f-a9b6-2c4d6e8f0a13 -o wide",
           "kprov operation b1e0f5a2-7c3d-4e8f-a9b6-2c4d6e8f0a13 -o json"},
          k_read_codes}},
        {"list",
         {{"kprov list", "kprov list -l team=orders -o name", "kprov list --expired -o wide",
           "kprov list --all --limit 0 -o json"},
          k_read_codes}},
        {"cloud-profile",
         {{"kprov cloud-profile", "kprov cloud-profile gcp", "kprov cloud-profile aws -o json",
           "kprov cloud-profile my-profile --namespaced -o yaml"},
          k_read_codes}},
        {"history",
         {{"kprov history 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10",
           "kprov history 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -o json"},
          k_read_codes}},
        {"kubeconfig",
         {{"kprov kubeconfig 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 > rt.kubeconfig",
           "kprov kubeconfig 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 --expiration 30m"},
          k_read_codes}},
        {"plan",
         {{"kprov plan -f examples/gcp.yaml", "kprov plan -f examples/gcp.yaml -o json",
           "kprov plan 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -f examples/upgrade.yaml",
           "kprov plan 3c8c2d4e-5b1a-4f7e-9a61-0d2f8e6b7a10 -f examples/upgrade.yaml "
           "--detailed-exitcode"},
          k_read_codes}},
        {"wait",
         {{"kprov wait b1e0f5a2-7c3d-4e8f-a9b6-2c4d6e8f0a13",
           "kprov wait b1e0f5a2-7c3d-4e8f-a9b6-2c4d6e8f0a13 --timeout 20m -q"},
          {0, 1, 2, 3, 4, 130, 143}}},
        {"cancel",
         {{"kprov cancel b1e0f5a2-7c3d-4e8f-a9b6-2c4d6e8f0a13",
           "kprov cancel b1e0f5a2-7c3d-4e8f-a9b6-2c4d6e8f0a13 --force"},
          {0, 1, 2, 5}}},
        {"watch",
         {{"kprov watch", "kprov watch --workers 8 --log-level debug",
           "kprov watch --store postgres://kprov:pw@db:5432/provisioner"},
          k_read_codes}},
        {"serve",
         {{"kprov serve", "kprov serve --address 127.0.0.1:3000 --metrics-address 127.0.0.1:9000",
           "kprov serve --workers 8 --log-level info"},
          k_read_codes}},
        {"migrate",
         {{"kprov migrate", "kprov migrate --store postgres://kprov:pw@db:5432/provisioner",
           "kprov migrate --re-encrypt --dry-run"},
          k_read_codes}},
        {"config",
         {{"kprov config", "kprov config -o json", "kprov config --reference"}, k_read_codes}},
        {"completion",
         {{"kprov completion bash", "kprov completion zsh > \"${fpath[1]}/_kprov\"",
           "kprov completion fish > ~/.config/fish/completions/kprov.fish"},
          k_read_codes}},
        {"version", {{"kprov version", "kprov version --long"}, k_read_codes}},
    };
    return k_helps;
}

} // namespace

std::vector<std::string> command_examples(std::string_view command) {
    const auto it = helps().find(command);
    return it == helps().end() ? std::vector<std::string>{} : it->second.examples;
}

std::vector<int> command_exit_codes(std::string_view command) {
    const auto it = helps().find(command);
    return it == helps().end() ? k_read_codes : it->second.exit_codes;
}

std::vector<int> all_exit_codes() {
    std::vector<int> out;
    for (const auto& c : k_exit_codes)
        out.push_back(c.code);
    return out;
}

namespace {

std::string exit_lines(const std::vector<int>& codes, bool detailed) {
    std::string out = "Exit status:\n";
    for (const auto& c : k_exit_codes) {
        if (std::find(codes.begin(), codes.end(), c.code) == codes.end())
            continue;
        out += "  " + std::to_string(c.code) + "  " +
               (c.code == 2 && detailed ? k_changes : c.meaning) + '\n';
    }
    return out;
}

} // namespace

std::string exit_status_text(const std::vector<int>& codes) {
    return exit_lines(codes, false);
}

std::string command_footer(std::string_view command, const std::string& notes) {
    std::string out = notes;
    if (!out.empty())
        out += "\n\n";
    const auto examples = command_examples(command);
    if (!examples.empty()) {
        out += "Examples:\n";
        for (const auto& example : examples)
            out += "  " + example + '\n';
        out += '\n';
    }
    out += exit_lines(command_exit_codes(command), command == "plan" || command == "upgrade-shoot");
    out += "\nGlobal options and every exit code: kprov --help; every detail: kprov(1).";
    return out;
}

} // namespace kprov::cli
