/*
 * A minimal stand-in for the SDK's hi_comm_svp.h (the HiSilicon MPP headers are not public): only
 * what nnie_board_dump.c uses -- the integer types of hi_type.h, SVP_BLOB_TYPE_E and SVP_BLOB_S with
 * the members and the order the SDK documents (type, stride, virtual and physical address, N, and
 * the W/H/C or sequence shape).  For building and testing the board-side writer on a PC only.
 */
#ifndef NNIE_TEST_STUB_HI_COMM_SVP_H
#define NNIE_TEST_STUB_HI_COMM_SVP_H

typedef unsigned char HI_U8;
typedef unsigned int HI_U32;
typedef int HI_S32;
typedef unsigned long long HI_U64;
typedef unsigned long HI_UL;
typedef float HI_FLOAT;

typedef enum hiSVP_BLOB_TYPE_E {
    SVP_BLOB_TYPE_S32 = 0x0,
    SVP_BLOB_TYPE_U8 = 0x1,
    SVP_BLOB_TYPE_YVU420SP = 0x2,
    SVP_BLOB_TYPE_YVU422SP = 0x3,
    SVP_BLOB_TYPE_VEC_S32 = 0x4,
    SVP_BLOB_TYPE_SEQ_S32 = 0x5,
    SVP_BLOB_TYPE_BUTT
} SVP_BLOB_TYPE_E;

typedef struct hiSVP_BLOB_S {
    SVP_BLOB_TYPE_E enType;
    HI_U32 u32Stride;      /* bytes per row */
    HI_U64 u64VirAddr;
    HI_U64 u64PhyAddr;
    HI_U32 u32Num;         /* N */
    union {
        struct {
            HI_U32 u32Width;
            HI_U32 u32Height;
            HI_U32 u32Chn;
        } stWhc;
        struct {
            HI_U32 u32Dim;
            HI_U64 u64VirAddrStep;   /* the steps of each of the N sequences (HI_U32 each) */
        } stSeq;
    } unShape;
} SVP_BLOB_S;

typedef SVP_BLOB_S SVP_SRC_BLOB_S;
typedef SVP_BLOB_S SVP_DST_BLOB_S;

#endif
