// native: seed 000's bare-host baseline for the image function ("OpenMP C++"): the items (PNG files
// named on the command line) each decoded, transformed and encoded as the function does
// (pipeline.hpp; FB_QUERY variant=np: decode, sleep 1 s, encode, as the function), in parallel over the OpenMP threads (-t N), with
// no platform and no network. Prints, per item, "item INDEX START_NS END_NS BYTES" (monotonic,
// from the program's start; BYTES the input's size) and then "total NS".
// Built by faasbench with g++ -O2 -fopenmp and Magick++'s flags (batch.native: true).
#include <Magick++.h>
#include <omp.h>

#include "pipeline.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    Magick::InitializeMagick(argv[0]);
    int threads = 1;
    const char* query = std::getenv("FB_QUERY");
    const bool np = query_has(query ? query : "", "variant=np");
    std::vector<std::string> files;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "-t" && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else {
            files.push_back(a);
        }
    }
    if (threads < 1 || files.empty()) {
        std::fprintf(stderr, "usage: native -t THREADS FILE...\n");
        return 2;
    }
    omp_set_num_threads(threads);
    const long n = static_cast<long>(files.size());
    std::vector<long long> start(n), end(n), bytes(n, -1);
    const auto t0 = std::chrono::steady_clock::now();
    auto since = [t0]() {
        return static_cast<long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    };
    long failed = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : failed)
    for (long i = 0; i < n; i++) {
        start[i] = since();
        std::ifstream in(files[i], std::ios::binary);
        std::vector<char> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        try {
            Magick::Blob out = transform(Magick::Blob(buf.data(), buf.size()), np);
            if (out.length() == 0) {
                failed++;
                continue;
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "native: %s: %s\n", files[i].c_str(), e.what());
            failed++;
            continue;
        }
        end[i] = since();
        bytes[i] = static_cast<long long>(buf.size());
    }
    const long long total = since();
    for (long i = 0; i < n; i++) {
        if (bytes[i] >= 0) std::printf("item %ld %lld %lld %lld\n", i, start[i], end[i], bytes[i]);
    }
    std::printf("total %lld\n", total);
    if (failed > 0) {
        std::fprintf(stderr, "native: %ld of %ld items failed\n", failed, n);
        return 1;
    }
    return 0;
}
