// The frame of a workload's bare-host baseline (cpp/native.cpp, seed 000's "OpenMP C++"): the items
// are files named on the command line (a file named twice is two items), worked on in parallel over
// the OpenMP threads (-t N), with no platform and no network. Prints, per item that succeeded,
// "item INDEX START_NS END_NS BYTES" (monotonic, from the program's start; BYTES the input's size)
// and then "total NS"; exits 1 when an item failed. faasbench builds it with g++ -O2 -fopenmp
// (batch.native: true) and reads these lines.
#pragma once
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

// work does one item on its bytes; false (or an exception) fails it.
template <typename Work>
int run_native(int argc, char** argv, Work work) {
    int threads = 1;
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
        bool ok = in.eof() || !in.fail();
        if (ok) {
            try {
                ok = work(buf);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "native: %s: %s\n", files[i].c_str(), e.what());
                ok = false;
            }
        }
        if (!ok) {
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
