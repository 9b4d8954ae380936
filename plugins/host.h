/* host.h — a plug-in kernel's own process. Every plug-in row runs its
 * kernel in a process of its own (spbench started again with
 * PLUGIN_HOST_ARG), so a kernel that crashes, hangs or writes where it
 * must not ends its row as an error and the study goes on. The two sides
 * share one file in memory and talk over a socket (protocol.h); an SpGEMM
 * kernel's C travels on the socket too. A CUDA kernel's host copies the
 * operands to the device and y back. */
#ifndef SPB_PLUGIN_HOST_H
#define SPB_PLUGIN_HOST_H

/* The host's main: argv[2] the library, argv[3] its checksum as loaded
 * ("crc32 HEX, N bytes"), argv[4] the kernel's name. */
int plugin_host_main(int argc, char **argv);

#endif
