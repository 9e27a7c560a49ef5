/* tests/sandbox/hostile/net_connect.c: tries to reach a TCP port on the host (argv[1] = port)
   over IPv4 and IPv6 loopback. Prints CONNECTED if it got through, else why each try failed. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int try_connect(int family, const char* address, int port) {
  int fd = socket(family, SOCK_STREAM, 0);
  if (fd < 0) {
    printf("socket(%s): %s\n", address, strerror(errno));
    return 0;
  }
  int rc;
  if (family == AF_INET) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    inet_pton(AF_INET, address, &a.sin_addr);
    rc = connect(fd, (struct sockaddr*)&a, sizeof a);
  } else {
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((unsigned short)port)};
    inet_pton(AF_INET6, address, &a.sin6_addr);
    rc = connect(fd, (struct sockaddr*)&a, sizeof a);
  }
  if (rc == 0) {
    const char msg[] = "stolen data";
    if (write(fd, msg, sizeof msg) < 0) perror("write");
    printf("CONNECTED %s\n", address);
  } else {
    printf("connect(%s): %s\n", address, strerror(errno));
  }
  close(fd);
  return rc == 0;
}

int hostile_main(int argc, char** argv) {
  if (argc < 2) return 2;
  int port = atoi(argv[1]);
  int connected = try_connect(AF_INET, "127.0.0.1", port) + try_connect(AF_INET6, "::1", port);
  fflush(stdout);
  return connected ? 3 : 0;
}
