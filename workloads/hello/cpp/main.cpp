// hello: answers 4 bytes and does no work (seed 002's ping, seed 003's hello-world); a
// stdin/stdout program, run per request by the watchdog in fork mode.
#include <iostream>

int main() {
    std::cout << "pong";
    return std::cout.good() ? 0 : 1;
}
