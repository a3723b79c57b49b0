/*
 * Test driver for board_code/nnie_board_dump.c, built against the SDK stand-in (sdk_stub/): it
 * fills an SVP_DST_BLOB_S from a spec file the test writes and calls nnie_board_dump_blob on it, as
 * a board program does after HI_MPI_SVP_NNIE_Forward.
 *
 *   driver SPEC NAME DIR FORMS
 *
 * SPEC: little-endian u32 type, stride, num, width, height, chn, dim, steps, then `steps` u32 step
 * counts (SEQ_S32: one per sequence), then the blob memory to the end of the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nnie_board_dump.h"

static int read_u32(FILE *fp, HI_U32 *out)
{
    unsigned char b[4];
    if (fread(b, 1, 4, fp) != 4) {
        return -1;
    }
    *out = (HI_U32)b[0] | ((HI_U32)b[1] << 8) | ((HI_U32)b[2] << 16) | ((HI_U32)b[3] << 24);
    return 0;
}

int main(int argc, char **argv)
{
    HI_U32 head[8];
    HI_U32 steps[64];
    SVP_DST_BLOB_S blob;
    unsigned char *memory;
    long start, end;
    size_t size;
    int k;
    FILE *fp;
    if (argc != 5) {
        fprintf(stderr, "usage: driver SPEC NAME DIR FORMS\n");
        return 2;
    }
    fp = fopen(argv[1], "rb");
    if (fp == NULL) {
        perror(argv[1]);
        return 2;
    }
    for (k = 0; k < 8; k++) {
        if (read_u32(fp, &head[k]) != 0) {
            fprintf(stderr, "short spec\n");
            return 2;
        }
    }
    if (head[7] > 64) {
        return 2;
    }
    for (k = 0; k < (int)head[7]; k++) {
        if (read_u32(fp, &steps[k]) != 0) {
            return 2;
        }
    }
    start = ftell(fp);
    fseek(fp, 0, SEEK_END);
    end = ftell(fp);
    fseek(fp, start, SEEK_SET);
    size = (size_t)(end - start);
    memory = malloc(size ? size : 1);
    if (memory == NULL || fread(memory, 1, size, fp) != size) {
        return 2;
    }
    fclose(fp);
    memset(&blob, 0, sizeof(blob));
    blob.enType = (SVP_BLOB_TYPE_E)head[0];
    blob.u32Stride = head[1];
    blob.u32Num = head[2];
    blob.u64VirAddr = (HI_U64)(HI_UL)memory;
    if (blob.enType == SVP_BLOB_TYPE_SEQ_S32) {
        blob.unShape.stSeq.u32Dim = head[6];
        blob.unShape.stSeq.u64VirAddrStep = (HI_U64)(HI_UL)steps;
    } else {
        blob.unShape.stWhc.u32Width = head[3];
        blob.unShape.stWhc.u32Height = head[4];
        blob.unShape.stWhc.u32Chn = head[5];
    }
    if (nnie_board_blob_bytes(&blob) != size) {
        fprintf(stderr, "memory of %lu bytes, the blob holds %llu\n", (unsigned long)size,
                (unsigned long long)nnie_board_blob_bytes(&blob));
        return 3;
    }
    if (nnie_board_dump_blob(&blob, argv[2], argv[3], (unsigned int)strtoul(argv[4], NULL, 0)) != 0) {
        perror("nnie_board_dump_blob");
        return 1;
    }
    free(memory);
    return 0;
}
