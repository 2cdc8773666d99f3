// native: seed 000's bare-host baseline for the image function ("OpenMP C++"): each item (a PNG)
// decoded, transformed and encoded as the function does (pipeline.hpp; Http_Query variant=np: decode,
// sleep 1 s, encode), in parallel over the OpenMP threads, no platform, no network (the frame:
// runtime/cpp/native.hpp).
#include <Magick++.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../../runtime/cpp/native.hpp"
#include "pipeline.hpp"

int main(int argc, char** argv) {
    Magick::InitializeMagick(argv[0]);
    const char* query = std::getenv("Http_Query");
    const bool np = query_has(query ? query : "", "variant=np");
    return run_native(argc, argv, [np](std::vector<char>& buf) {
        return transform(Magick::Blob(buf.data(), buf.size()), np).length() > 0;
    });
}
