// reverse: reads the whole body from stdin and writes it reversed to stdout (seed 000's C++
// byte-reversal function, run per request by the watchdog in fork mode).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    std::vector<char> buf((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    std::reverse(buf.begin(), buf.end());
    std::cout.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    return std::cout.good() ? 0 : 1;
}
