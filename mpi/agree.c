/* agree.c — the ranks agreeing on a failure, and counting those on a node:
 * what layout.c, exchange.c, petsc.c and runtime.c share, in a file of its
 * own so that the runtime, which calls them, is not also what they call. */
#include <stdio.h>

#include "dist_mpi.h"

spb_status dist_agree(MPI_Comm comm, spb_status st, char *msg)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = st == SPB_OK ? size : rank;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) return SPB_OK;
    struct {
        int status;
        char text[SPB_MSG_LEN];
    } failure = {(int)st, ""};
    if (rank == first) snprintf(failure.text, sizeof failure.text, "%s", msg ? msg : "");
    MPI_Bcast(&failure, (int)sizeof failure, MPI_BYTE, first, comm);
    if (rank == 0 && msg) {
        msg[0] = '\0';
        spb_fail(msg, (spb_status)failure.status, "rank %d of %d: %s", first, size, failure.text);
    }
    return (spb_status)failure.status;
}

int dist_node_ranks(MPI_Comm comm, int *local)
{
    MPI_Comm node;
    int size;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (local) MPI_Comm_rank(node, local);
    MPI_Comm_size(node, &size);
    MPI_Comm_free(&node);
    return size;
}
