/* petsc.c — the PETSc row: MatMult on an MPIAIJ matrix made from the same
 * rows (ownership of mpi.rows), x and y PETSc vectors over the rank's own
 * arrays, so the scatter of x and gather of y are the other rows'. Made in
 * prepare (not timed). Without PETSc (SPB_HAVE_PETSC unset) the row says
 * so. */
#include <stdio.h>

#include "dist_mpi.h"

#ifdef SPB_HAVE_PETSC
#include <petscmat.h>

typedef struct {
    Mat A;
    Vec x, y;
} petsc_objects;

static int petsc_started;

int dist_petsc_compiled(void) { return 1; }

/* PETSc on this rank alone (PETSC_COMM_WORLD = MPI_COMM_SELF), so that its
 * start needs no other rank; matrices live on each row's communicator. */
static spb_status petsc_start(char *msg)
{
    if (petsc_started) return SPB_OK;
    PETSC_COMM_WORLD = MPI_COMM_SELF;
    if (PetscInitializeNoArguments() != 0)
        return spb_fail(msg, SPB_ERR_DEVICE, "PETSc did not start (PetscInitialize failed)");
    PetscPopSignalHandler(); /* spbench's own handlers stay */
    petsc_started = 1;
    return SPB_OK;
}

spb_status petsc_prepare(dist_state *s, char *msg)
{
    spb_status st = dist_agree(s->comm, petsc_start(msg), msg);
    if (st == SPB_OK) st = exchange_plan(s, msg); /* its figures and vectors (agreed) */
    if (st != SPB_OK) return st;
    petsc_objects *o = spb_calloc(1, sizeof *o);
    PetscErrorCode err = o ? 0 : 1;
    PetscInt rows = map_owned(&s->rows, s->rank), cols = map_owned(&s->cols, s->rank);
    if (!err)
        err = MatCreateMPIAIJWithArrays(s->comm, rows, cols, s->rows.count, s->cols.count,
                                        s->part.row_ptr, s->part.col_idx, s->part.val, &o->A);
    if (!err) err = VecCreateMPIWithArray(s->comm, 1, cols, s->cols.count, s->x_own, &o->x);
    if (!err) err = VecCreateMPIWithArray(s->comm, 1, rows, s->rows.count, s->y_own, &o->y);
    s->petsc = o;
    csr_free(&s->part); /* PETSc keeps its own copy */
    if (err) st = spb_fail(msg, SPB_ERR_DEVICE, "PETSc could not make the MPIAIJ matrix (%d)", err);
    return dist_agree(s->comm, st, msg);
}

void petsc_product(dist_state *s)
{
    petsc_objects *o = s->petsc;
    MatMult(o->A, o->x, o->y);
}

void petsc_free(dist_state *s)
{
    petsc_objects *o = s->petsc;
    if (!o) return;
    if (o->y) VecDestroy(&o->y);
    if (o->x) VecDestroy(&o->x);
    if (o->A) MatDestroy(&o->A);
    spb_free(o);
    s->petsc = NULL;
}

void petsc_finish(void)
{
    if (petsc_started) PetscFinalize();
    petsc_started = 0;
}

#else

int dist_petsc_compiled(void) { return 0; }

spb_status petsc_prepare(dist_state *s, char *msg)
{
    (void)s;
    return spb_fail(msg, SPB_ERR_DECLINED, "spbench was built without PETSc");
}

void petsc_product(dist_state *s) { (void)s; }
void petsc_free(dist_state *s) { (void)s; }
void petsc_finish(void) {}

#endif
