// pacefloor: the least an open-loop load generator can spend on this machine.
//
// It does what faasbench's open loop does for each request and nothing else:
// one thread, one epoll set holding an absolute timerfd and every keep-alive
// connection; at each intended send time (or, with --resolution-us, at the
// next point of that grid, as wrk2 and oha pace at ~1 ms) it writes a fixed
// GET on a free connection, and it reads each response when it arrives. No
// HTTP parsing beyond the status line, no histograms, no allocation while
// running. bench/bench.py runs it beside faasbench in the same rounds, so
// that "CPU seconds per 100k requests" has a floor to be read against: what
// the wake-ups alone cost on this machine (a VM makes each one dear).
//
// Only for the bench's nginx (a short response per read). Bounded: it stops
// after rate x seconds requests and waits at most 1 s for the last replies.
//
//   pacefloor --port 18080 --rate 10000 --seconds 5 --conns 64 [--resolution-us 1000]
//
// Prints one JSON object: requests, sent_rps, errors, dropped (no free
// connection at send time), lag and latency (from the intended time) p50/p99
// in ms.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define TIMER_ID UINT32_MAX
#define MAX_REQUESTS 100000000LL

static const char request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static double pct_ms(int64_t *v, int64_t n, double q) {
  if (n == 0) return 0;
  int64_t i = (int64_t)(q * (double)(n - 1));
  return (double)v[i] / 1e6;
}

static int arm(int tfd, int64_t at) {
  struct itimerspec its = {.it_value = {.tv_sec = at / 1000000000LL, .tv_nsec = at % 1000000000LL}};
  return timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static int fail(const char *what) {
  fprintf(stderr, "pacefloor: %s: %s\n", what, strerror(errno));
  return 1;
}

int main(int argc, char **argv) {
  double rate = 10000, seconds = 5;
  int port = 18080, conns = 64;
  int64_t res = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--rate")) rate = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--conns")) conns = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--port")) port = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--resolution-us")) res = atoll(argv[i + 1]) * 1000;
    else {
      fprintf(stderr, "pacefloor: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  double total = rate * seconds;
  if (rate <= 0 || seconds <= 0 || total < 1 || total > MAX_REQUESTS) {
    fprintf(stderr, "pacefloor: --rate x --seconds must be 1..%lld requests\n", MAX_REQUESTS);
    return 2;
  }
  if (conns < 1 || conns > 65536 || port < 1 || port > 65535 || res < 0) {
    fprintf(stderr, "pacefloor: --conns 1..65536, --port 1..65535, --resolution-us >= 0\n");
    return 2;
  }
  int64_t n = (int64_t)total, gap = (int64_t)(1e9 / rate);

  int *fd = calloc(conns, sizeof *fd), *freelist = calloc(conns, sizeof *freelist);
  int64_t *intended = calloc(conns, sizeof *intended);
  int64_t *lag = malloc(n * sizeof *lag), *lat = malloc(n * sizeof *lat);
  if (!fd || !freelist || !intended || !lag || !lat) return fail("memory");
  int ep = epoll_create1(EPOLL_CLOEXEC), tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  if (ep < 0 || tfd < 0) return fail("epoll/timerfd");
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  int nfree = 0;
  for (int c = 0; c < conns; c++) {
    int one = 1;
    fd[c] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd[c] < 0 || connect(fd[c], (struct sockaddr *)&addr, sizeof addr) < 0) return fail("connect");
    setsockopt(fd[c], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct epoll_event e = {.events = EPOLLIN, .data.u32 = (uint32_t)c};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd[c], &e) < 0) return fail("epoll_ctl");
    freelist[nfree++] = c;
  }
  struct epoll_event te = {.events = EPOLLIN, .data.u32 = TIMER_ID};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &te) < 0) return fail("epoll_ctl timer");

  int64_t sent = 0, done = 0, dropped = 0, errors = 0, nlat = 0;
  int64_t start = now_ns() + 1000000, drain_until = 0;
  char buf[4096];
  if (arm(tfd, start) < 0) return fail("timerfd_settime");
  while (done + dropped < sent || sent < n) {
    int timeout = -1;
    if (sent == n) {
      int64_t left = drain_until - now_ns();
      if (left <= 0) break;
      timeout = (int)(left / 1000000) + 1;
    }
    struct epoll_event ev[64];
    int k = epoll_wait(ep, ev, 64, timeout);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return fail("epoll_wait");
    for (int j = 0; j < k; j++) {
      uint32_t id = ev[j].data.u32;
      if (id != TIMER_ID) {
        ssize_t m = read(fd[id], buf, sizeof buf);
        int64_t t = now_ns();
        done++;
        if (m <= 0) { // closed or broken: counted, and the connection is not used again
          errors++;
          epoll_ctl(ep, EPOLL_CTL_DEL, fd[id], NULL);
          continue;
        }
        if (m < 12 || memcmp(buf, "HTTP/1.1 200", 12) != 0) errors++;
        lat[nlat++] = t - intended[id];
        freelist[nfree++] = (int)id;
        continue;
      }
      uint64_t expiries;
      if (read(tfd, &expiries, sizeof expiries) < 0 && errno != EAGAIN) return fail("timerfd read");
      int64_t t = now_ns();
      for (; sent < n && start + sent * gap <= t; sent++) {
        int64_t due = start + sent * gap;
        if (nfree == 0) {
          dropped++;
          continue;
        }
        int c = freelist[--nfree];
        intended[c] = due;
        lag[sent - dropped] = now_ns() - due;
        if (write(fd[c], request, sizeof request - 1) != (ssize_t)(sizeof request - 1)) return fail("write");
      }
      if (sent < n) {
        int64_t next = start + sent * gap;
        if (res > 0) next = start + (next - start + res - 1) / res * res;
        if (arm(tfd, next) < 0) return fail("timerfd_settime");
      } else {
        drain_until = now_ns() + 1000000000LL;
      }
    }
  }
  int64_t nlag = sent - dropped;
  qsort(lag, nlag, sizeof *lag, cmp_i64);
  qsort(lat, nlat, sizeof *lat, cmp_i64);
  printf("{\"requests\": %lld, \"sent_rps\": %.1f, \"errors\": %lld, \"dropped\": %lld, \"unanswered\": %lld, "
         "\"lag_p50\": %.4f, \"lag_p99\": %.4f, \"p50\": %.4f, \"p99\": %.4f}\n",
         (long long)done, (double)nlag * 1e9 / (double)(n * gap), (long long)errors,
         (long long)dropped, (long long)(nlag - done), pct_ms(lag, nlag, 0.5), pct_ms(lag, nlag, 0.99),
         pct_ms(lat, nlat, 0.5), pct_ms(lat, nlat, 0.99));
  for (int c = 0; c < conns; c++) close(fd[c]);
  return 0;
}
