"""The board checks' T-codes (T601-T608), registered here beside the code that builds them
(:func:`add_findings`).  Each names the mistake, the line of board code to look at (the SDK
sample's line doing that step: :mod:`nnie_lsp.readers.wk.contract` quotes them) and the fix.  Registering
loads no numpy.
"""

from __future__ import annotations

from nnie_lsp.core.diagnostics import Severity
from nnie_lsp.rules.triage_common import register_finding

STRIDE, SCALE, LAYOUT, CHANNELS, ASSIGNMENT, REPEAT, VERSUS, UNUSABLE = (
    "T601", "T602", "T603", "T604", "T605", "T606", "T607", "T608")

_CONTRACT = ("; the board contract: nnie-triage wk FILE.wk --board-contract",
             "；板端约定：nnie-triage wk FILE.wk --board-contract")

register_finding(
    __name__,
    STRIDE, "board-row-stride", Severity.ERROR, 1,
    summary=("The board code steps through a blob's rows with the wrong stride", "板端代码按错误的行跨度（stride）读写 blob"),
    messages={
        "output": ("{file}: the board read {node}'s rows ({shape}) {read_bytes} bytes apart, but the blob's rows are "
                   "{true_bytes} bytes apart (u32Stride = ALIGN16({w} × 4) = {blob_stride}): read at {true_bytes} bytes "
                   "the values agree with the {against} (cosine {cosine}; as read {cosine_as_read}: a shear after the "
                   "first row). Look at the line that moves to the next output row (the SDK sample: `ps32ResultAddr += "
                   "u32Stride / sizeof(HI_U32);`) and advance by u32Stride / 4 values, not by the width{contract}",
                   "{file}：板端按 {read_bytes} 字节的间距读取 {node} 的各行（{shape}），但该 blob 的行间距是 {true_bytes} 字节"
                   "（u32Stride = ALIGN16({w} × 4) = {blob_stride}）：按 {true_bytes} 字节读取时数值与{against}一致（余弦 {cosine}；"
                   "按原样读取为 {cosine_as_read}：第一行之后整体错位）。请检查移到下一输出行的那一行代码（SDK 示例："
                   "`ps32ResultAddr += u32Stride / sizeof(HI_U32);`），每行前进 u32Stride / 4 个值而不是宽度{contract}"),
        "input": ("{file}: the board wrote {node}'s rows ({shape}) {true_bytes} bytes apart, but the blob's rows are "
                  "{blob_stride} bytes apart (u32Stride = ALIGN16({w})): the chip read a sheared image (the file fits the "
                  "{against}'s data at {true_bytes} bytes per row, R² {r2}; at {read_bytes}, R² {r2_as_read}). Look at "
                  "the line that moves to the next input row (SAMPLE_SVP_NNIE_FillSrcData: `pu8PicAddr += u32Stride;`): "
                  "copy W bytes per row and advance by u32Stride{contract}",
                  "{file}：板端按 {true_bytes} 字节的间距写入 {node} 的各行（{shape}），但该 blob 的行间距是 {blob_stride} 字节"
                  "（u32Stride = ALIGN16({w})）：芯片读到的是错位的图像（该文件按每行 {true_bytes} 字节与{against}的数据吻合，R² {r2}；"
                  "按 {read_bytes} 字节为 R² {r2_as_read}）。请检查移到下一输入行的那一行代码（SAMPLE_SVP_NNIE_FillSrcData："
                  "`pu8PicAddr += u32Stride;`）：每行拷贝 W 字节，再前进 u32Stride{contract}"),
        "input_inferred": ("the board's outputs are what the chip computes when {node}'s rows ({shape}) are copied {w} "
                           "bytes apart into rows {blob_stride} bytes apart (the emulation on the cfg's image fed so "
                           "reproduces them: cosine {cosine}; fed right {cosine_right}) — inferred from the outputs, "
                           "the input was not dumped: dump it (<input name>.bin) to confirm. Look at the line that moves "
                           "to the next input row (`pu8PicAddr += u32Stride;`){contract}",
                           "板端输出正是把 {node} 的各行（{shape}）按 {w} 字节间距拷入间距为 {blob_stride} 字节的行时芯片算出的结果（按此方式送入 cfg "
                           "图像的仿真重现了它们：余弦 {cosine}；正确送入为 {cosine_right}）——这是从输出推断的，输入没有导出：请导出输入"
                           "（<输入名>.bin）确认。请检查移到下一输入行的代码（`pu8PicAddr += u32Stride;`）{contract}"),
        "contract": _CONTRACT,
    },
    docs="""
    ## What it finds
    With `nnie-triage compare --board DIR`: a board output (or the dumped input) whose values lie at
    another row stride than the one the file implies.  Every row of an NNIE blob starts
    `u32Stride = ALIGN16(width × element size)` bytes after the one before: an S32 output whose
    width is not a multiple of 4 (YOLO's 13 × 13 and 26 × 26 heads, MTCNN's P-Net at most sizes)
    or a U8 input whose width is not a multiple of 16 (SSD's 300 → 304) carries padding after each
    row.  Each output file is read again with every stride from W to the blob's; the stride that
    restores agreement with the simulator (else Caffe) is the one the values lie at.

    ## Why
    The guide's steps stop at the simulator.  Board code that reads `width` values per row and
    moves on by `width` reads the first row right and then a shear: cosine about 0 on a 13 × 13
    head, and every box wrong.  Nothing before the board sees it: the simulator and RuyiStudio
    read their own dumps right.

    ## Example
    ```
    T601 prob1.txt: the board read prob1's rows (2×13×13) 52 bytes apart, but the blob's rows are
    64 bytes apart (u32Stride = ALIGN16(13 × 4) = 64) ...
    ```

    ## Fix
    In the board code, advance the output pointer by `u32Stride / sizeof(HI_S32)` per row (the
    input pointer by `u32Stride` bytes), as `SAMPLE_SVP_NNIE_PrintReportResult` and
    `SAMPLE_SVP_NNIE_FillSrcData` do; `nnie-triage wk FILE.wk --board-contract --format c` writes
    every stride as a `#define`.
    """,
    docs_zh="使用 `nnie-triage compare --board DIR` 时：板端输出（或导出的输入）的数值位于与文件所示不同的行跨度上。NNIE blob 的每一行都从上一行之后 "
            "`u32Stride = ALIGN16(宽 × 元素字节数)` 处开始：宽不是 4 的倍数的 S32 输出（YOLO 的 13×13、26×26）或宽不是 16 的倍数的 U8 输入每行末尾有填充。"
            "按宽度逐行读取会使第一行之后整体错位（13×13 输出的余弦约为 0）。修正：每行前进 u32Stride 字节（S32 指针前进 u32Stride/4 个值），"
            "`nnie-triage wk FILE.wk --board-contract --format c` 会把每个 stride 写成 #define。")

register_finding(
    __name__,
    SCALE, "board-scale-4096", Severity.ERROR, 1,
    summary=("The board's values are off by the fixed-point base 4096 (or another factor)",
             "板端数值相差定点基数 4096（或其它倍数）"),
    messages={
        "x4096": ("{file}: {node}'s values are {scale} × the {against}'s ({octaves} octaves: 4096 is 12): the board "
                  "code printed the S32 words without dividing by 4096, and a cosine cannot see it (it is the same as "
                  "the right values'). Look at the line that turns a word into a value: `(HI_FLOAT)ps32[w] / "
                  "SAMPLE_SVP_NNIE_QUANT_BASE` — divide by 4096 once",
                  "{file}：{node} 的数值是{against}的 {scale} 倍（{octaves} 个倍频程：4096 为 12）：板端代码输出 S32 字时没有除以 4096，"
                  "余弦看不出这一点（与正确数值的余弦相同）。请检查把字转换为数值的那一行：`(HI_FLOAT)ps32[w] / "
                  "SAMPLE_SVP_NNIE_QUANT_BASE`——除以 4096 一次"),
        "twice": ("{file}: {node}'s values are {scale} × the {against}'s ({octaves} octaves: 1/4096 is −12): the board "
                  "code divides by 4096 twice (once in a helper, once when printing). Look at the lines that convert the "
                  "S32 words (`/ SAMPLE_SVP_NNIE_QUANT_BASE`) and keep one division",
                  "{file}：{node} 的数值是{against}的 {scale} 倍（{octaves} 个倍频程：1/4096 为 −12）：板端代码除了两次 4096"
                  "（一次在辅助函数里，一次在输出时）。请检查转换 S32 字的代码（`/ SAMPLE_SVP_NNIE_QUANT_BASE`），只保留一次除法"),
        "factor": ("{file}: {node}'s values are {scale} × the {against}'s ({octaves} octaves) on the reading that agrees: "
                   "the board code converts the S32 words with another factor than 1/4096. Look at the line that turns "
                   "a word into a value and use `(HI_FLOAT)s32 / 4096` (20.12 fixed point)",
                   "{file}：在吻合的读法下 {node} 的数值是{against}的 {scale} 倍（{octaves} 个倍频程）：板端代码用 1/4096 以外的系数转换 S32 字。"
                   "请检查把字转换为数值的那一行，改为 `(HI_FLOAT)s32 / 4096`（20.12 定点）"),
        "x4096_words": ("{file}: the words of {node} are {scale} × the {against}'s ({octaves} octaves): not the blob "
                        "memory as the chip wrote it — the words were multiplied by 4096 before they were written. "
                        "Write the blob memory as it is (nnie_board_dump_blob in board_code/)",
                        "{file}：{node} 的字是{against}的 {scale} 倍（{octaves} 个倍频程）：这不是芯片写出的 blob 内存——写文件前字被乘了 4096。"
                        "请原样写出 blob 内存（board_code/ 中的 nnie_board_dump_blob）"),
        "twice_words": ("{file}: the words of {node} are {scale} × the {against}'s ({octaves} octaves): the file holds "
                        "values already divided by 4096, stored as integers — not the blob memory. Write the blob memory "
                        "as it is (nnie_board_dump_blob in board_code/)",
                        "{file}：{node} 的字是{against}的 {scale} 倍（{octaves} 个倍频程）：文件里是已除以 4096 再存成整数的值，不是 blob 内存。"
                        "请原样写出 blob 内存（board_code/ 中的 nnie_board_dump_blob）"),
        "factor_words": ("{file}: the words of {node} are {scale} × the {against}'s ({octaves} octaves): not the blob "
                         "memory as the chip wrote it. Write the blob memory as it is (nnie_board_dump_blob in "
                         "board_code/)",
                         "{file}：{node} 的字是{against}的 {scale} 倍（{octaves} 个倍频程）：这不是芯片写出的 blob 内存。"
                         "请原样写出 blob 内存（board_code/ 中的 nnie_board_dump_blob）"),
    },
    docs="""
    ## What it finds
    With `nnie-triage compare --board DIR`: a board output whose values, on the reading that agrees
    with the simulator (else Caffe), are 4096 times too large (the S32 word printed without
    dividing by `SAMPLE_SVP_NNIE_QUANT_BASE`), 4096 times too small (divided twice) or off by
    another factor of at least 2.  Decided by a magnitude test — the least-squares scale of the
    board values against the simulator's, within 0.5 octave of 4096 — never by a cosine.

    ## Why
    A cosine is blind to a factor: ×4096 has cosine 1.0.  Comparison tools that show only the
    cosine, the vendor's included, call such a board healthy; the application then sees scores of
    4000 and boxes off the image ("why are scores ×4096 on NNIE").

    ## Example
    ```
    T602 prob1.txt: prob1's values are 4096 × the simulator's (12.00 octaves: 4096 is 12) ...
    ```

    ## Fix
    Convert each S32 word once: `(HI_FLOAT)s32 / 4096`.
    """,
    docs_zh="使用 `nnie-triage compare --board DIR` 时：在与仿真（否则 Caffe）吻合的读法下，板端输出的数值大 4096 倍（输出 S32 字时没有除以 "
            "SAMPLE_SVP_NNIE_QUANT_BASE）、小 4096 倍（除了两次）或相差其它至少 2 倍的系数。按幅度判断（最小二乘缩放在 4096 的 0.5 个倍频程内），"
            "从不按余弦判断：乘 4096 的余弦仍是 1.0。修正：每个 S32 字只转换一次：`(HI_FLOAT)s32 / 4096`。")

register_finding(
    __name__,
    LAYOUT, "board-input-hwc", Severity.ERROR, 1,
    summary=("The board feeds a packed H,W,C image into the planar input blob", "板端把 H,W,C 交织图像当作平面格式送入输入 blob"),
    messages={
        "hwc": ("{file}: the board fed {node} a packed H,W,C image (an OpenCV Mat copied as it is) as if it were planar "
                "C,H,W: read as H,W,C the file fits the {against}'s data (R² {r2}; as planes {r2_as_read}). The input "
                "blob holds C planes of H rows: look at the copy into the input blob (SAMPLE_SVP_NNIE_FillSrcData copies "
                "plane by plane) and split the channels first (cv::split, or pixel (h, w) channel c to plane c)",
                "{file}：板端把交织的 H,W,C 图像（原样拷贝的 OpenCV Mat）当作平面 C,H,W 送入 {node}：按 H,W,C 读取时文件与{against}的数据吻合"
                "（R² {r2}；按平面为 {r2_as_read}）。输入 blob 是 C 个平面、每个 H 行：请检查拷贝到输入 blob 的代码"
                "（SAMPLE_SVP_NNIE_FillSrcData 逐平面拷贝），先拆分通道（cv::split，或把像素 (h, w) 的通道 c 放到平面 c）"),
        "transposed": ("{file}: the board fed {node} with H and W swapped: the file fits the {against}'s data transposed "
                       "(R² {r2}; as is {r2_as_read}). Look at how the image is resized and copied (width and height "
                       "swapped) and feed H rows of W pixels",
                       "{file}：板端送入 {node} 时 H 与 W 互换：转置后文件与{against}的数据吻合（R² {r2}；原样为 {r2_as_read}）。"
                       "请检查图像缩放与拷贝（宽高写反），按 H 行、每行 W 个像素送入"),
        "hwc_inferred": ("the board's outputs are what the chip computes on the cfg's image fed to {node} as a packed "
                         "H,W,C buffer (an OpenCV Mat copied as it is) into the planar blob: the emulation fed so "
                         "reproduces them (cosine {cosine}; fed right {cosine_right}) — inferred from the outputs, the "
                         "input was not dumped: dump it (<input name>.bin) to confirm, and split the channels into "
                         "planes before copying (cv::split)",
                         "板端输出正是把 cfg 图像以交织 H,W,C（原样拷贝的 OpenCV Mat）送入平面 blob {node} 时芯片算出的结果：按此方式送入的仿真重现了它们"
                         "（余弦 {cosine}；正确送入为 {cosine_right}）——这是从输出推断的，输入没有导出：请导出输入（<输入名>.bin）确认，并在拷贝前拆分通道（cv::split）"),
    },
    docs="""
    ## What it finds
    With `nnie-triage compare --board DIR` and the board's input dumped (`<input name>.bin`): an
    input blob that holds a packed H,W,C image (the bytes of an OpenCV `Mat`) where the chip
    expects planar C,H,W, or an image with H and W swapped.  The input file is read both ways and
    fitted against the simulator's data with the case-1 fit (per-channel scale and offset: the
    chip's mean and scale); the reading that fits is how the board wrote it.

    ## Why
    An NNIE image input is planar: C planes of H rows.  A `Mat` is interleaved B,G,R per pixel;
    copied as it is, the net sees a striped image and every output is wrong (first-layer cosine
    about 0.05), while the simulator, fed by the mapper from the image file, is right.

    ## Example
    ```
    T603 data.bin: the board fed data a packed H,W,C image (an OpenCV Mat copied as it is) ...
    ```

    ## Fix
    Split the channels into planes before copying (`cv::split`, or copy pixel (h, w) channel c to
    plane c), each row of W bytes `u32Stride` bytes after the last.
    """,
    docs_zh="使用 `nnie-triage compare --board DIR` 并导出板端输入（`<输入名>.bin`）时：输入 blob 中是交织的 H,W,C 图像（OpenCV Mat 的字节），"
            "而芯片要求平面 C,H,W；或图像的 H 与 W 互换。按两种方式读取输入文件，并用情况 1 的拟合（逐通道缩放与偏移）与仿真数据比较。"
            "修正：拷贝前先拆分通道（cv::split），每行 W 字节、行间距 u32Stride。")

register_finding(
    __name__,
    CHANNELS, "board-channel-order", Severity.ERROR, 1,
    summary=("The board feeds the input's channels in another order", "板端送入的输入通道顺序不对"),
    messages={
        "rgb_bgr": ("{file}: the board fed {node}'s channels 0 and 2 swapped (RGB planes for BGR, or the reverse): its "
                    "planes fit the {against}'s data with the first and the third exchanged (R² {r2}). Look at where the "
                    "image is converted and copied into the input planes (cv::cvtColor, the plane order) and feed the "
                    "order the .wk was built for (the cfg's [RGB_order], the order the net was trained in){hedge}",
                    "{file}：板端送入 {node} 时通道 0 与 2 互换（把 RGB 平面当作 BGR，或反之）：交换第一、第三平面后与{against}的数据吻合"
                    "（R² {r2}）。请检查图像转换并拷贝到输入平面的代码（cv::cvtColor、平面顺序），按 .wk 构建时的顺序送入"
                    "（cfg 的 [RGB_order]，即网络训练时的顺序）{hedge}"),
        "permuted": ("{file}: the board fed {node}'s channels in another order: its planes fit the {against}'s data with "
                     "the channels permuted ({permutation}; R² {r2}). Look at where the planes are copied into the input "
                     "blob and feed them in the order the .wk was built for{hedge}",
                     "{file}：板端送入 {node} 的通道顺序不同：按排列（{permutation}）调整后与{against}的数据吻合（R² {r2}）。"
                     "请检查拷贝到输入 blob 的平面顺序，按 .wk 构建时的顺序送入{hedge}"),
        "rgb_bgr_inferred": ("the board's outputs are what the chip computes on the cfg's image fed to {node} with "
                             "channels 0 and 2 exchanged (RGB for BGR, or the reverse): the emulation fed so reproduces "
                             "them (cosine {cosine}; fed right {cosine_right}) — inferred from the outputs, the input was "
                             "not dumped: dump it (<input name>.bin) to confirm, and feed the planes in the order the .wk "
                             "was built for",
                             "板端输出正是把 cfg 图像的通道 0 与 2 互换后送入 {node} 时芯片算出的结果（把 RGB 当作 BGR，或反之）：按此方式送入的仿真重现了它们"
                             "（余弦 {cosine}；正确送入为 {cosine_right}）——这是从输出推断的，输入没有导出：请导出输入（<输入名>.bin）确认，并按 .wk 构建时的顺序送入各平面"),
        "hedge": ("; compared with Caffe's data (no simulator data): if the cfg's [RGB_order] itself disagrees with "
                  "the training, the board follows the cfg and the cfg is to fix — the simulator's dumps tell which",
                  "；这是与 Caffe 数据的比较（没有仿真数据）：若 cfg 的 [RGB_order] 本身与训练不符，板端只是照 cfg 送入，应修正 cfg——仿真 dump 可以分辨"),
    },
    docs="""
    ## What it finds
    With `nnie-triage compare --board DIR` and the board's input dumped: input planes in another
    channel order than the simulator's data — the permutation test of the case-1 fit, run on the
    board's input instead of the simulator's.

    ## Why
    The mapper calibrates the `.wk` on images in the order the cfg's `[RGB_order]` says; a board
    program that converts the camera frame to RGB for a BGR net (or forgets to for an RGB one)
    feeds the net another image: the first layer drops below 0.999 on the board while the
    simulator is fine.

    ## Example
    ```
    T604 data.bin: the board fed data's channels 0 and 2 swapped (RGB planes for BGR, or the reverse) ...
    ```

    ## Fix
    Feed the planes in the order the `.wk` was built for (drop or add the `cvtColor`, or copy the
    planes in the other order).
    """,
    docs_zh="使用 `nnie-triage compare --board DIR` 并导出板端输入时：输入平面的通道顺序与仿真数据不同（在板端输入上运行情况 1 拟合的通道排列测试）。"
            "修正：按 .wk 构建时的顺序送入各平面（去掉或加上 cvtColor，或换一个顺序拷贝平面）。")

register_finding(
    __name__,
    ASSIGNMENT, "board-output-assignment", Severity.ERROR, 1,
    summary=("A board output holds another output's values (wrong index, swap, a 31-character name collision)",
             "板端某个输出存的是另一个输出的值（下标错、互换、31 字符重名）"),
    messages={
        "swap": ("{file} and {other_file} hold each other's output: {file} (named {node}, output {index}) holds "
                 "{other}'s values (cosine {cosine}; against its own {cosine_as_read}) and {other_file} {node}'s: the "
                 "board code takes the outputs by the wrong index. Look at where the outputs are taken "
                 "(`pstNnieParam->astSegData[0].astDst[i]`) and take output i in the .wk's order{contract}",
                 "{file} 与 {other_file} 存的是对方的输出：{file}（名为 {node}，输出 {index}）存的是 {other} 的值（余弦 {cosine}；"
                 "与自身 {cosine_as_read}），{other_file} 存的是 {node} 的：板端代码取输出时下标错了。请检查取输出的代码"
                 "（`pstNnieParam->astSegData[0].astDst[i]`），按 .wk 中的顺序取第 i 个输出{contract}"),
        "wrong_output": ("{file} (named {node}, output {index}) holds {other}'s values (output {other_index}; cosine "
                         "{cosine}, against its own {cosine_as_read}): the board code takes another output for {node}. "
                         "Look at where the outputs are taken (`pstNnieParam->astSegData[0].astDst[i]`) and take output "
                         "{index}{contract}",
                         "{file}（名为 {node}，输出 {index}）存的是 {other} 的值（输出 {other_index}；余弦 {cosine}，与自身 {cosine_as_read}）："
                         "板端代码为 {node} 取了另一个输出。请检查取输出的代码（`pstNnieParam->astSegData[0].astDst[i]`），取第 {index} 个输出"
                         "{contract}"),
        "collision": ("{file} (named {node}) holds {other}'s values (cosine {cosine}; against its own {cosine_as_read}): "
                      "both names agree in their first 31 characters ({cut}) and the .wk keeps only 31, so code that "
                      "finds outputs by name (`strncmp(szName, …, SVP_NNIE_NODE_NAME_LEN)`) takes {other} for both. "
                      "Take the outputs by index (output {index} is {node}), or give the tops names that differ within "
                      "31 characters and map again{contract}",
                      "{file}（名为 {node}）存的是 {other} 的值（余弦 {cosine}；与自身 {cosine_as_read}）：两个名字前 31 个字符相同（{cut}），"
                      ".wk 只保留 31 个字符，按名字查找输出的代码（`strncmp(szName, …, SVP_NNIE_NODE_NAME_LEN)`）对两者都取到 {other}。"
                      "请按下标取输出（输出 {index} 是 {node}），或给这些 top 起前 31 个字符不同的名字后重新转换{contract}"),
        "collision_file": ("{file} is named by {cut}, the 31 characters {count} outputs share ({nodes}): it holds {node}'s "
                           "values (cosine {cosine}), the {which} of them; the others ({others}) were written to the same "
                           "file or never found, since the .wk keeps 31 characters of a name. Name the dumps by index or "
                           "by the full blob name, take the outputs by index, or give the tops names that differ within "
                           "31 characters and map again{contract}",
                           "{file} 以 {cut} 命名，这是 {count} 个输出共有的前 31 个字符（{nodes}）：它存的是 {node} 的值（余弦 {cosine}），"
                           "即其中的 {which}；其余的（{others}）被写进同一个文件或根本没有被找到，因为 .wk 只保留名字的 31 个字符。"
                           "请按下标或完整 blob 名命名 dump、按下标取输出，或给这些 top 起前 31 个字符不同的名字后重新转换{contract}"),
        "first": ("first", "第一个"), "last": ("last", "最后一个"), "one": ("one", "一个"),
        "contract": _CONTRACT,
    },
    docs="""
    ## What it finds
    With `nnie-triage compare --board DIR`: a board output file whose values are another output's.
    Each file is compared with every output of a size it fits (with and without the stride
    padding); the output it agrees with is the one it holds.  Two files holding each other's
    output are a swap; a file holding the output whose name agrees with its own in the first 31
    characters is the `.wk`'s name collision (NN608 warns of it before mapping); a file named by
    such a shared 31-character name holds only one of those outputs.

    ## Why
    The `.wk` keeps 31 characters of a node's name and the SDK sample finds outputs by
    `strncmp` over them: RetinaFace's three `face_rpn_cls_prob_reshape_stride…` outputs all come
    out as the first.  Outputs taken by a hard-coded index break when the output order changes
    (another prototxt, another mapper).  Either way one head is decoded with another head's
    numbers.

    ## Example
    ```
    T605 prob1.bin and conv4-2.bin hold each other's output: prob1.bin (named prob1, output 0) holds conv4-2's values ...
    ```

    ## Fix
    Take the outputs by index in the `.wk`'s order (`nnie-triage wk FILE.wk --board-contract`), and
    give tops that collide names that differ within 31 characters.
    """,
    docs_zh="使用 `nnie-triage compare --board DIR` 时：某个板端输出文件中的数值是另一个输出的。每个文件都与所有尺寸相符的输出比较（含或不含 stride 填充），"
            "与之吻合的就是它实际存的输出：两个文件互存对方为互换；与前 31 个字符相同的输出吻合为 .wk 的重名（NN608 在转换前警告）。"
            "修正：按 .wk 中的顺序按下标取输出（`nnie-triage wk FILE.wk --board-contract`），并让冲突的 top 名在 31 个字符内不同。")

register_finding(
    __name__,
    REPEAT, "board-not-repeatable", Severity.ERROR, 1,
    summary=("Two board runs of one input differ (cache, an unfinished forward, threads)",
             "同一输入的两次板端运行结果不同（缓存、前向未完成、多线程）"),
    messages={
        "differ": ("two runs of one input differ: {count} of {compared} dumps ({files}); the worst in {share} of its "
                   "values, by up to {difference} ({first} against {run}): the board reads a buffer that changes under "
                   "it — the output's cache not invalidated after the forward (SAMPLE_COMM_SVP_FlushCache on astDst), "
                   "the output read before HI_MPI_SVP_NNIE_Query says it finished, or another thread using the same "
                   "blobs. Look at the lines after HI_MPI_SVP_NNIE_Forward: query with bBlock HI_TRUE until bFinish, "
                   "invalidate the output memory's cache, one set of blobs per thread",
                   "同一输入的两次运行结果不同：{compared} 个 dump 中有 {count} 个不同（{files}）；最严重的有 {share} 的数值不同，"
                   "最大相差 {difference}（{first} 与 {run}）：板端读取的缓冲区在读取时被改变——前向后没有使输出的缓存失效"
                   "（对 astDst 调用 SAMPLE_COMM_SVP_FlushCache）、在 HI_MPI_SVP_NNIE_Query 报告完成前就读取了输出，或另一个线程在用同一组 blob。"
                   "请检查 HI_MPI_SVP_NNIE_Forward 之后的代码：以 bBlock 为 HI_TRUE 查询直到 bFinish，使输出内存的缓存失效，每个线程一组 blob"),
        "wild": ("two runs of one input differ: {count} of {compared} dumps ({files}); the worst in {share} of its "
                 "values, by up to {difference} ({first} against {run}), with values far above the output's range: "
                 "another thread (or a second forward) writes the buffer while it is read. Look at the lines after "
                 "HI_MPI_SVP_NNIE_Forward: query with bBlock HI_TRUE until bFinish before reading, and give each thread "
                 "its own blobs (or a lock around forward and read)",
                 "同一输入的两次运行结果不同：{compared} 个 dump 中有 {count} 个不同（{files}）；最严重的有 {share} 的数值不同，"
                 "最大相差 {difference}（{first} 与 {run}），且数值远超输出的范围：读取时另一个线程（或第二次前向）在写这个缓冲区。"
                 "请检查 HI_MPI_SVP_NNIE_Forward 之后的代码：读取前以 bBlock 为 HI_TRUE 查询直到 bFinish，并让每个线程使用自己的 blob（或对前向与读取加锁）"),
    },
    docs="""
    ## What it finds
    With `nnie-triage compare --board DIR` where DIR holds two runs of one input (two sub-folders,
    or `--board` given twice): dumps of the same node whose values differ.

    ## Why
    The chip computes the same words from the same input every time.  Dumps that differ come from
    the code around it: the output read before `HI_MPI_SVP_NNIE_Query` reports the forward
    finished, a cached copy of the output memory not invalidated after the forward, the input not
    flushed before it, or a second thread running a forward on the same blobs ("values far above
    4096" in public threads).  No comparison with Caffe can explain such a board; it must be made
    repeatable first — step 1 of the guide compares one image's dumps, which presumes they are the
    same each run.

    ## Example
    ```
    T606 two runs of one input differ: 2 of 2 dumps (conv4-2.bin, prob1.bin); the worst in 37.5% of its values ...
    ```

    ## Fix
    After `HI_MPI_SVP_NNIE_Forward`: query with `bBlock = HI_TRUE` until `bFinish`, invalidate the
    output memory's cache (`SAMPLE_COMM_SVP_FlushCache` on the destination blobs), flush the input
    after filling it, and give each thread its own blobs.
    """,
    docs_zh="使用 `nnie-triage compare --board DIR` 且 DIR 中有同一输入的两次运行（两个子目录，或 `--board` 给两次）时：同一节点的 dump 数值不同。"
            "芯片对同一输入每次算出相同的字；不同来自周围的代码：前向完成前读取、输出缓存未失效、输入未刷新，或第二个线程在同一组 blob 上前向。"
            "修正：前向后以 bBlock = HI_TRUE 查询直到 bFinish，使输出缓存失效，填充输入后刷新缓存，每个线程使用自己的 blob。")

register_finding(
    __name__,
    VERSUS, "board-versus-simulator", Severity.INFO, 1,
    summary=("How close the board is to the simulator (and to Caffe)", "板端与仿真（及 Caffe）的接近程度"),
    messages={
        "same": ("the board computes what the simulator computes: {summary}", "板端计算结果与仿真一致：{summary}"),
        "caffe": ("the board's outputs against Caffe (no simulator dumps): {summary}",
                  "板端输出与 Caffe 的比较（没有仿真 dump）：{summary}"),
        "differs": ("{file}: {node} differs from the simulator ({how}) and no other reading of the file explains it: "
                    "the board did not run what the simulator ran — check that the board loads the .wk the simulator "
                    "ran (the same mapper run, the same chip), that it feeds the same image the same way (dump the input "
                    "too: <input name>.bin), and that the dump is of the same image",
                    "{file}：{node} 与仿真不同（{how}），且文件的任何其它读法都解释不了：板端运行的不是仿真运行的内容——请确认板端加载的是仿真用的 "
                    ".wk（同一次 mapper 运行、同一芯片），以同样方式送入同一张图（同时导出输入：<输入名>.bin），并且 dump 的是同一张图"),
        "caffe_differs": ("{file}: {node} differs from Caffe ({how}) and no reading of the file explains it; without the "
                          "simulator's dumps the loss cannot be placed between the mapper and the board: make them "
                          "(nnie_mapper's mapper_quant/, the instruction simulator, or nnie-triage emulate) and compare "
                          "again with --sim",
                          "{file}：{node} 与 Caffe 不同（{how}），且文件的任何读法都解释不了；没有仿真 dump 就无法判断损失在 mapper 还是板端："
                          "请生成仿真 dump（nnie_mapper 的 mapper_quant/、指令仿真或 nnie-triage emulate）并用 --sim 再次比较"),
        "input_differs": ("{file}: the board's input is not the {against}'s data (the best fit, R² {r2}, is below what one "
                          "image fed two ways gives): another image, another resize or crop, or a YUV frame converted "
                          "otherwise. Feed the image the simulator was given (the last of the image list, resized as the "
                          "mapper resizes) and dump again",
                          "{file}：板端输入不是{against}的数据（最佳拟合 R² {r2}，低于同一张图以不同方式送入时应有的值）：另一张图、"
                          "另一种缩放或裁剪，或 YUV 帧转换方式不同。请送入仿真所用的图（图像列表的最后一张，按 mapper 的方式缩放）后重新导出"),
    },
    docs="""
    ## What it finds
    With `nnie-triage compare --board DIR`, when no board mistake (T601-T606) fires: how close each
    board output is to the simulator's — bit-exact (every S32 word equal), nearly (within 2 steps
    of 1/4096), close (cosine ≥ 0.9999) — and its cosine against Caffe (info); or the output that
    differs from the simulator with no reading to explain it (warning: the board did not run what
    the simulator ran), or a board input that is not the simulator's image.

    ## Why
    The board runs the instructions the instruction simulator runs: a faithful board equals it bit
    for bit (or nearly).  Once the board equals the simulator, what is left is the guide's own
    verdict (Caffe against the simulator, step 1 of the guide and the case it names); a board
    that differs with no board-code mistake to name was given another `.wk` or another input.

    ## Example
    ```
    T607 the board computes what the simulator computes: 2 outputs bit-exact (prob1, conv4-2) ...
    ```

    ## Fix
    None when it is the same; otherwise load the `.wk` the simulator ran and feed the same image.
    """,
    docs_zh="使用 `nnie-triage compare --board DIR` 且没有板端错误（T601–T606）时：每个板端输出与仿真的接近程度——逐位一致（每个 S32 字相同）、"
            "几乎一致（相差 2 个 1/4096 步长以内）、接近（余弦 ≥ 0.9999）——以及与 Caffe 的余弦（信息）；或与仿真不同且没有读法能解释的输出"
            "（警告：板端运行的不是仿真运行的内容），或板端输入不是仿真用的图像。")

register_finding(
    __name__,
    UNUSABLE, "board-dump-unusable", Severity.WARNING, 1,
    summary=("A board dump file that cannot be read as any node", "无法作为任何节点读取的板端 dump 文件"),
    messages={
        "size": ("{file} holds {count} values; {node} needs {want}: not read as {node} (a dump of another blob, a "
                 "batch of several images, or cut short?)",
                 "{file} 有 {count} 个值；{node} 需要 {want}：没有作为 {node} 读取（是别的 blob 的 dump、多张图的批次，还是被截断了？）"),
        "no_node": ("{file} holds {count} values and its name is no node's: it fits no output's size, or no reading of "
                    "it agrees with one (outputs: {outputs}); name the dumps by the node's name or index",
                    "{file} 有 {count} 个值，其名字不是任何节点的：它与任何输出的尺寸都不符，或没有读法与某个输出吻合（输出：{outputs}）；"
                    "请用节点名或下标命名 dump"),
        "unreadable": ("{file}: {error}", "{file}：{error}"),
        "nothing": ("no board file could be compared with an output or the input of the net ({files}): the "
                    "verdict says nothing about the board; name each dump by its node's name (the prototxt's top, or "
                    "the 31 characters the .wk keeps) or index, and keep the reference dumps of those blobs",
                    "没有任何板端文件能与网络的输出或输入比较（{files}）：结论不涉及板端；请用节点名（prototxt 的 top，或 .wk 保留的 31 个字符）"
                    "或下标命名每个 dump，并保留这些 blob 的参考 dump"),
    },
    docs="""
    ## What it finds
    With `nnie-triage compare --board DIR`: a file in a board dump form that is read as no node —
    its size fits neither the node it is named after (C·H·W values, or C·H·stride with the padding)
    nor, unnamed, any output; or its content is not a number.

    ## Why
    The board checks read each file as the blob its name says; a file that cannot be one is left
    out, and the verdict rests on the others — said here rather than silently (step 1 of the
    guide compares each layer's dump: a file left out is a layer not compared).

    ## Example
    ```
    T608 prob1.bin holds 300 values; prob1 needs 338 (C·H·W) or 416 (with the stride padding) ...
    ```

    ## Fix
    Write one file per node with its whole blob (`board_code/nnie_board_dump.c`), named by the
    node's name or index.
    """,
    docs_zh="使用 `nnie-triage compare --board DIR` 时：某个板端 dump 形式的文件不能作为任何节点读取——其尺寸既不符合名字所指的节点（C·H·W 个值，"
            "或含填充的 C·H·stride），也不符合任何输出；或其内容不是数字。修正：每个节点写一个含完整 blob 的文件（board_code/nnie_board_dump.c），"
            "以节点名或下标命名。")
