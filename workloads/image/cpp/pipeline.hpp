// The image function's work (seed 000's Magick++ pipeline), shared by the function (main.cpp) and
// its bare-host baseline (native.cpp): decode a PNG, transform it (or, np, sleep 1 s instead), encode
// a PNG.
#pragma once
#include <Magick++.h>

#include <chrono>
#include <string>
#include <thread>

// query_has says whether a query string (Http_Query) holds key=value.
inline bool query_has(const std::string& query, const std::string& kv) {
    std::string q = "&" + query + "&";
    return q.find("&" + kv + "&") != std::string::npos;
}

inline Magick::Blob transform(const Magick::Blob& in, bool np) {
    Magick::Image img;
    img.read(in);
    if (np) {
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
    return out;
}
