/*
 * nnie_board_dump: write an NNIE blob as the board holds it, in the forms `nnie-triage compare
 * --board DIR` reads (the accepted forms: nnie_lsp/docs/board-dumps.md).
 *
 * Build it with the board program against the SDK's own headers (hi_comm_svp.h, from the MPP
 * release of the chip); it needs nothing else but the C library.
 *
 *     nnie_board_dump_blob(&pstNnieParam->astSegData[0].astDst[i],
 *                          pstNnieParam->pstModel->astSeg[0].astDstNode[i].szName,
 *                          "/mnt/board", NNIE_DUMP_BIN | NNIE_DUMP_TXT);
 *
 * Call it for every destination blob of every segment (and, to let the triage check what was fed,
 * for the first segment's source blobs after they are filled), after HI_MPI_SVP_NNIE_Query says
 * the forward finished and after the output memory's cache was invalidated
 * (SAMPLE_COMM_SVP_FlushCache on astDst, as the SDK sample does after Forward).
 */
#ifndef NNIE_BOARD_DUMP_H
#define NNIE_BOARD_DUMP_H

#include "hi_comm_svp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* <dir>/<name>.bin: the blob memory as it is: every row u32Stride bytes (values, then padding),
 * N x C x H rows (SEQ_S32: one row per step of every sequence); S32 words little-endian as the
 * chip writes them. */
#define NNIE_DUMP_BIN 0x1u
/* <dir>/<name>.txt: one value per line, item n, then channel c, then row h, then column w, the
 * padding skipped: an S32 value as int32 / 4096 ("%.12g": the word comes back exactly), a U8
 * value as an integer. */
#define NNIE_DUMP_TXT 0x2u
/* <dir>/<name>.hex: the SDK sample's report form, one "%08x" word per line, padding skipped
 * (S32 kinds only). */
#define NNIE_DUMP_HEX 0x4u

/* The SDK sample's fixed-point base: an S32 result is value x 4096 (SAMPLE_SVP_NNIE_QUANT_BASE). */
#define NNIE_BOARD_QUANT_BASE 4096

/* Write `blob` as <dir>/<name>.<ext> for each form in `forms`.  `name` is the node's name (the
 * 32-byte szName of SVP_NNIE_NODE_S) or any label; '/' and other characters a file name cannot
 * hold become '_'.  Returns 0, or -1 with errno set (a bad blob: EINVAL). */
int nnie_board_dump_blob(const SVP_BLOB_S *blob, const char *name, const char *dir, unsigned int forms);

/* The bytes the blob's memory holds: N x C x H x u32Stride (SEQ_S32: the total steps x u32Stride;
 * YVU420SP: N x H x 3/2 x u32Stride; YVU422SP: N x H x 2 x u32Stride). */
HI_U64 nnie_board_blob_bytes(const SVP_BLOB_S *blob);

#ifdef __cplusplus
}
#endif

#endif /* NNIE_BOARD_DUMP_H */
