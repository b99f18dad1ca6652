/* shardlens: a thin shim over ISA-L's streaming inflate (igzip), so that Rust never needs the layout of
 * `struct inflate_state`: this file is compiled against the installed header by build.rs, and Rust sees only
 * an opaque pointer. See src/lib.rs for why ISA-L, and docs/performance.md for the figures. */
#include <isa-l/igzip_lib.h>
#include <stdint.h>
#include <stdlib.h>

/* A new state, set to read one gzip member (header parsed, CRC and length in the trailer checked), or NULL. */
struct inflate_state *shardlens_isal_new(void) {
    struct inflate_state *s = malloc(sizeof *s);
    if (s != NULL) {
        isal_inflate_init(s);
        s->crc_flag = ISAL_GZIP;
    }
    return s;
}

/* Ready for the next gzip member. */
void shardlens_isal_reset(struct inflate_state *s) {
    isal_inflate_reset(s);
    s->crc_flag = ISAL_GZIP;
}

void shardlens_isal_free(struct inflate_state *s) { free(s); }

/* Inflates from `in` into `out`; says how many bytes it took and made, and whether the member (trailer
 * included) is finished. Returns ISA-L's code: 0, or a negative ISAL_* error. */
int shardlens_isal_inflate(struct inflate_state *s, const uint8_t *in, uint32_t in_len, uint8_t *out,
                           uint32_t out_len, uint32_t *used, uint32_t *made, int *finished) {
    s->next_in = (uint8_t *)in;
    s->avail_in = in_len;
    s->next_out = out;
    s->avail_out = out_len;
    int rc = isal_inflate(s);
    *used = in_len - s->avail_in;
    *made = out_len - s->avail_out;
    *finished = s->block_state == ISAL_BLOCK_FINISH;
    return rc;
}
