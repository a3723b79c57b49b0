/*
 * nnie_board_dump: write an NNIE blob as the board holds it (see nnie_board_dump.h).  C99, the C
 * library only; builds against the SDK's hi_comm_svp.h.
 */
#include "nnie_board_dump.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NNIE_DUMP_PATH_MAX 1024

static int is_s32_kind(SVP_BLOB_TYPE_E type)
{
    return type == SVP_BLOB_TYPE_S32 || type == SVP_BLOB_TYPE_VEC_S32 || type == SVP_BLOB_TYPE_SEQ_S32;
}

/* Rows of one item of a non-recurrent blob: C x H, or the Y and the V/U rows of a YUV image. */
static HI_U64 rows_per_item(const SVP_BLOB_S *blob)
{
    HI_U64 h = blob->unShape.stWhc.u32Height;
    if (blob->enType == SVP_BLOB_TYPE_YVU420SP) {
        return h * 3 / 2;
    }
    if (blob->enType == SVP_BLOB_TYPE_YVU422SP) {
        return h * 2;
    }
    return (HI_U64)blob->unShape.stWhc.u32Chn * h;
}

static HI_U64 total_steps(const SVP_BLOB_S *blob)
{
    const HI_U32 *steps = (const HI_U32 *)(HI_UL)blob->unShape.stSeq.u64VirAddrStep;
    HI_U64 total = 0;
    HI_U32 n;
    if (steps == NULL) {
        return 0;
    }
    for (n = 0; n < blob->u32Num; n++) {
        total += steps[n];
    }
    return total;
}

HI_U64 nnie_board_blob_bytes(const SVP_BLOB_S *blob)
{
    if (blob == NULL) {
        return 0;
    }
    if (blob->enType == SVP_BLOB_TYPE_SEQ_S32) {
        return total_steps(blob) * blob->u32Stride;
    }
    return (HI_U64)blob->u32Num * rows_per_item(blob) * blob->u32Stride;
}

static int path_for(char *out, size_t size, const char *dir, const char *name, const char *ext)
{
    size_t k, start;
    int written = snprintf(out, size, "%s/", dir);
    if (written < 0 || (size_t)written >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    start = (size_t)written;
    /* the node name as a file name: '/' (Caffe tops such as "conv1/relu") and the like become '_' */
    for (k = 0; name[k] != '\0' && start + k + 1 < size; k++) {
        char c = name[k];
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                   c == '-' || c == '.';
        out[start + k] = keep ? c : '_';
    }
    out[start + k] = '\0';
    if (name[k] != '\0' || start + k + strlen(ext) + 1 >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcat(out, ext);
    return 0;
}

/* The blob memory as it is, padding included. */
static int write_bin(const SVP_BLOB_S *blob, const char *path)
{
    HI_U64 bytes = nnie_board_blob_bytes(blob);
    const HI_U8 *data = (const HI_U8 *)(HI_UL)blob->u64VirAddr;
    FILE *fp = fopen(path, "wb");
    int ok;
    if (fp == NULL) {
        return -1;
    }
    ok = bytes == 0 || fwrite(data, 1, (size_t)bytes, fp) == (size_t)bytes;
    if (fclose(fp) != 0) {
        ok = 0;
    }
    return ok ? 0 : -1;
}

/* One value per line, n, c, h, w, the padding skipped; as_hex: the sample's "%08x" words. */
static int write_values(const SVP_BLOB_S *blob, const char *path, int as_hex)
{
    const HI_U8 *row = (const HI_U8 *)(HI_UL)blob->u64VirAddr;
    HI_U64 rows, r;
    HI_U32 width, w;
    int s32 = is_s32_kind(blob->enType);
    int ok = 1;
    FILE *fp = fopen(path, "w");
    if (fp == NULL) {
        return -1;
    }
    if (blob->enType == SVP_BLOB_TYPE_SEQ_S32) {
        rows = total_steps(blob);
        width = blob->unShape.stSeq.u32Dim;
    } else {
        rows = (HI_U64)blob->u32Num * rows_per_item(blob);
        width = blob->unShape.stWhc.u32Width;
    }
    for (r = 0; r < rows && ok; r++, row += blob->u32Stride) {
        for (w = 0; w < width && ok; w++) {
            if (s32) {
                HI_S32 word;
                memcpy(&word, row + (size_t)w * sizeof(HI_S32), sizeof(word));
                if (as_hex) {
                    ok = fprintf(fp, "%08x\n", (unsigned int)word) > 0;
                } else {
                    ok = fprintf(fp, "%.12g\n", (double)word / NNIE_BOARD_QUANT_BASE) > 0;
                }
            } else {
                ok = fprintf(fp, "%u\n", (unsigned int)row[w]) > 0;
            }
        }
    }
    if (fclose(fp) != 0) {
        ok = 0;
    }
    return ok ? 0 : -1;
}

int nnie_board_dump_blob(const SVP_BLOB_S *blob, const char *name, const char *dir, unsigned int forms)
{
    char path[NNIE_DUMP_PATH_MAX];
    if (blob == NULL || name == NULL || dir == NULL || blob->u64VirAddr == 0 || blob->enType >= SVP_BLOB_TYPE_BUTT ||
        (blob->enType == SVP_BLOB_TYPE_SEQ_S32 && blob->unShape.stSeq.u64VirAddrStep == 0) ||
        ((forms & NNIE_DUMP_HEX) && !is_s32_kind(blob->enType))) {
        errno = EINVAL;
        return -1;
    }
    if ((forms & NNIE_DUMP_BIN) &&
        (path_for(path, sizeof(path), dir, name, ".bin") != 0 || write_bin(blob, path) != 0)) {
        return -1;
    }
    if ((forms & NNIE_DUMP_TXT) &&
        (path_for(path, sizeof(path), dir, name, ".txt") != 0 || write_values(blob, path, 0) != 0)) {
        return -1;
    }
    if ((forms & NNIE_DUMP_HEX) &&
        (path_for(path, sizeof(path), dir, name, ".hex") != 0 || write_values(blob, path, 1) != 0)) {
        return -1;
    }
    return 0;
}
