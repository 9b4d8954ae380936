/* ghost_messages.c — the ghost exchange's messages, posted by the CPU
 * ranks' product (exchange.c) and the GPU ranks' (exchange_gpu.c) alike:
 * the ghosts' receives into s->x_other (requests 0 .. recvs-1) and the
 * sends of the packed send_buf (requests recvs ..). */
#include "dist_mpi.h"

#define TAG_GHOST 21

void exchange_post_receives(dist_state *s)
{
    for (int k = 0; k < s->ghost.recvs; k++)
        MPI_Irecv(s->x_other + s->ghost.recv_start[k],
                  s->ghost.recv_start[k + 1] - s->ghost.recv_start[k], MPI_DOUBLE,
                  s->ghost.recv_rank[k], TAG_GHOST, s->comm, &s->ghost.requests[k]);
}

void exchange_post_sends(dist_state *s)
{
    for (int k = 0; k < s->ghost.sends; k++)
        MPI_Isend(s->ghost.send_buf + s->ghost.send_start[k],
                  s->ghost.send_start[k + 1] - s->ghost.send_start[k], MPI_DOUBLE,
                  s->ghost.send_rank[k], TAG_GHOST, s->comm,
                  &s->ghost.requests[s->ghost.recvs + k]);
}
