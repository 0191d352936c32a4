// kprov-sim: see tests/sim/README.md (sources here in sim/, tests in tests/sim/).
#include "cli.hpp"

int main(int argc, char** argv) {
    return kprov::sim::run_cli(argc, argv);
}
