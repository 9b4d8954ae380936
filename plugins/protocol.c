/* protocol.c — the shared file's layout (see protocol.h). */
#include "plugins/protocol.h"

#include <string.h>

static uint64_t page_up(uint64_t bytes, uint64_t page) { return (bytes + page - 1) / page * page; }

void plugin_layout_plan(plugin_layout *L, const plugin_sizes *size, int32_t precision,
                        int64_t value_bytes, uint64_t page)
{
    memset(L, 0, sizeof *L);
    L->size = *size;
    L->precision = precision, L->value_bytes = value_bytes, L->page = page;
    uint64_t rows = (uint64_t)size->rows, cols = (uint64_t)size->cols;
    uint64_t nnz = (uint64_t)size->nnz, b_nnz = (uint64_t)size->b_nnz;
    L->row_ptr_at = page; /* page 0: this layout */
    L->col_idx_at = L->row_ptr_at + page_up(sizeof(int32_t) * (rows + 1), page);
    L->values_at = L->col_idx_at + page_up(sizeof(int32_t) * nnz, page);
    L->b_row_ptr_at = L->values_at + page_up((uint64_t)value_bytes * nnz, page);
    L->b_col_idx_at =
        L->b_row_ptr_at +
        (size->b_rows > 0 ? page_up(sizeof(int32_t) * ((uint64_t)size->b_rows + 1), page) : 0);
    L->b_values_at = L->b_col_idx_at + page_up(sizeof(int32_t) * b_nnz, page);
    L->matrix_end = L->b_values_at + page_up((uint64_t)value_bytes * b_nnz, page);
    uint64_t x_bytes = (uint64_t)value_bytes * cols, y_bytes = (uint64_t)value_bytes * rows;
    L->x_guard_at = L->matrix_end + page_up(x_bytes, page);
    L->x_at = L->x_guard_at - x_bytes;
    L->y_front_guard_at = L->x_guard_at + page;
    L->y_slack_at = L->y_front_guard_at + page;
    L->y_guard_at = L->y_slack_at + page_up(y_bytes, page) + (y_bytes % page == 0 ? page : 0);
    L->y_at = L->y_guard_at - y_bytes;
    L->total = L->y_guard_at + page;
}
