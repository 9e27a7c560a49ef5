// Finds the runner's connection to the judge (the one SOCK_SEQPACKET socket among its descriptors)
// and sends it a message that is not JSON, then waits: the judge must kill it and say it broke the
// protocol, not that it crashed.
// hone: task=relu_small.py
#include <sys/socket.h>
#include <unistd.h>

#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int fd = 3; fd < 1024; ++fd) {
    int type = 0;
    socklen_t len = sizeof type;
    if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_SEQPACKET) {
      static const char garbage[] = "not a reply";
      (void)::send(fd, garbage, sizeof garbage - 1, 0);
    }
  }
  ::sleep(30);
  out.data()[0] = x.data()[0];
}
