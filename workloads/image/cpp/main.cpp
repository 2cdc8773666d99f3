// image: seed 000's Magick++ function, a stdin/stdout program run per request by the watchdog in
// fork mode. Reads a PNG from stdin and writes the transformed PNG to stdout. FB_QUERY selects
// variant=np (decode, sleep 1 s, encode) or version=1 (print the ImageMagick version and exit).
#include <Magick++.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

static bool has(const std::string& query, const std::string& kv) {
    std::string q = "&" + query + "&";
    return q.find("&" + kv + "&") != std::string::npos;
}

int main(int argc, char** argv) {
    Magick::InitializeMagick(argc > 0 ? argv[0] : nullptr);
    const char* env = std::getenv("FB_QUERY");
    const std::string query = env ? env : "";
    if (has(query, "version=1")) {
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
        Magick::Image img;
        img.read(Magick::Blob(in.data(), in.size()));
        if (has(query, "variant=np")) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
        } else {
            img.blur(0, 1.5);
            img.addNoise(Magick::GaussianNoise);
            img.addNoise(Magick::ImpulseNoise);
            img.enhance();
            img.negate();
            img.normalize();
            img.reduceNoise(3);
            img.swirl(90);
            img.wave(10, 100);
        }
        img.magick("PNG");
        Magick::Blob out;
        img.write(&out);
        std::cout.write(static_cast<const char*>(out.data()), static_cast<std::streamsize>(out.length()));
    } catch (const Magick::Exception& e) {
        std::cerr << "image: " << e.what() << "\n";
        return 1;
    }
    return std::cout.good() ? 0 : 1;
}
