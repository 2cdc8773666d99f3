// image: seed 000's Magick++ function, a stdin/stdout program run per request by the watchdog in
// fork mode. Reads a PNG from stdin and writes the transformed PNG to stdout. The query (Http_Query, as
// OpenFaaS's watchdogs set it; else the first argument, as Nuclio's shell runtime passes it from
// X-Nuclio-Arguments) selects variant=np (decode, sleep 1 s, encode) or version=1 (print the
// ImageMagick version and exit).
#include <Magick++.h>

#include "pipeline.hpp"

#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

// health: the function contract's health call (GET /_fb/health), by the path a per-request process is given:
// Http_Path from OpenFaaS's watchdogs, NUCLIO_EVENT_PATH from Nuclio's shell runtime. Without it the call would
// run the pipeline on an empty body and fail, and a platform waiting for an answer below 500 would wait for ever.
static bool health() {
    for (const char* name : {"Http_Path", "NUCLIO_EVENT_PATH"}) {
        const char* v = std::getenv(name);
        if (v && std::string(v) == "/_fb/health") return true;
    }
    return false;
}

int main(int argc, char** argv) {
    if (health()) {
        std::cout << "ok";
        return std::cout.good() ? 0 : 1;
    }
    Magick::InitializeMagick(argc > 0 ? argv[0] : nullptr);
    const char* env = std::getenv("Http_Query");
    const std::string query = env ? env : (argc > 1 ? argv[1] : "");
    if (query_has(query, "version=1")) {
        std::cout << MagickCore::GetMagickVersion(nullptr);
        return std::cout.good() ? 0 : 1;
    }
    std::ios::sync_with_stdio(false);
    std::vector<char> in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (in.empty()) {
        std::cerr << "image: empty body, want a PNG\n";
        return 2;
    }
    try {
        Magick::Blob out = transform(Magick::Blob(in.data(), in.size()), query_has(query, "variant=np"));
        std::cout.write(static_cast<const char*>(out.data()), static_cast<std::streamsize>(out.length()));
    } catch (const Magick::Exception& e) {
        std::cerr << "image: " << e.what() << "\n";
        return 1;
    }
    return std::cout.good() ? 0 : 1;
}
