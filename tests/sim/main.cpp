// kprov-sim: see tests/sim/README.md.
#include "cli.hpp"

int main(int argc, char** argv) {
    return kprov::sim::run_cli(argc, argv);
}
