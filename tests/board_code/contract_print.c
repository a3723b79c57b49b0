/*
 * Includes a header `nnie-triage wk FILE.wk --board-contract --format c` wrote (CONTRACT_HEADER,
 * its prefix CONTRACT_PREFIX) and prints its table, one node per line, for the test to compare with
 * the contract's JSON: segment is_output index name type n c h w element_size stride size from_seg
 * from_index.
 */
#include <stdio.h>

#include CONTRACT_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define NODES CAT(CONTRACT_PREFIX, _NODES)
#define COUNT CAT(CONTRACT_PREFIX, _NODE_COUNT)

int main(void)
{
    int k;
    for (k = 0; k < COUNT; k++) {
        printf("%d %d %d %s %d %u %u %u %u %u %u %lu %d %d\n", NODES[k].segment, NODES[k].is_output, NODES[k].index,
               NODES[k].name, NODES[k].blob_type, NODES[k].n, NODES[k].c, NODES[k].h, NODES[k].w,
               NODES[k].element_size, NODES[k].stride, NODES[k].size, NODES[k].from_segment, NODES[k].from_index);
    }
    return 0;
}
