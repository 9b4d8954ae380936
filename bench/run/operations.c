/* operations.c — the operations in --list order, and by name (see
 * operation.h): the one file that knows them all. */
#include <string.h>

#include "bench/run/op_spgemm.h"
#include "bench/run/op_spmv.h"
#include "bench/run/operation.h"

const spb_operation *operation_at(int index)
{
    switch (index) {
    case 0: return operation_spmv();
    case 1: return operation_spgemm();
    }
    return NULL;
}

const spb_operation *operation_named(const char *name)
{
    for (int k = 0; operation_at(k); k++)
        if (strcmp(operation_at(k)->name, name) == 0) return operation_at(k);
    return NULL;
}
