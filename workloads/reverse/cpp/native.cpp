// native: seed 000's bare-host baseline for the byte reversal: each item read whole and reversed, in
// parallel over the OpenMP threads, no platform, no network (the frame: runtime/cpp/native.hpp).
#include <algorithm>
#include <vector>

#include "../../runtime/cpp/native.hpp"

int main(int argc, char** argv) {
    return run_native(argc, argv, [](std::vector<char>& buf) {
        std::reverse(buf.begin(), buf.end());
        // Keep the result observable, so the reversal is not optimised away.
        volatile char sink = buf.empty() ? 0 : buf[0];
        (void)sink;
        return true;
    });
}
