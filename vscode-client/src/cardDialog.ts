/**
 * Before a Caffe reference without a model card: ask once (per cfg and session) whether to declare
 * how the net was trained, pre-filled from the server's draft (your Caffe dumps, your inference
 * code), each pre-filled value saying where it came from; the confirmed values are written by the
 * server (`nnie.writeCard`). Nothing is written without the user's confirmation.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  ASK,
  TRANSPOSED,
  CARD_COMMANDS,
  type CardDraft,
  type CardKey,
  draftValue,
  numbersText,
  orderItems,
  parseNumbers,
  sourcesFor,
  transposeItems,
  whereFrom,
} from './card';
import type { TriageRequests } from './triage/requests';

const asked = new Set<string>();

/**
 * Before an emulation: when the card says the net was trained transposed, whether the images are
 * fed transposed (the mapper is fed what the image list holds; no cfg key transposes). `undefined`
 * when the user cancelled; `false` when the card says nothing of it.
 */
export async function askTransposed(requests: TriageRequests, client: LanguageClient, cfg: string): Promise<boolean | undefined> {
  const draft = await requests.guard('NNIE: reading how the net was trained', () =>
    requests.send<CardDraft>(client, CARD_COMMANDS.draft, { cfg }),
  );
  if (!draft?.has_entry || draft.entry?.transpose !== true) {
    return false;
  }
  const pick = await vscode.window.showQuickPick(
    [{ label: TRANSPOSED.fed, value: true }, { label: TRANSPOSED.asIs, value: false }],
    { title: TRANSPOSED.title, ignoreFocusOut: true },
  );
  return pick?.value;
}

/** `false` when the user cancelled (the reference does not run); `true` to go on (with or without a card). */
export async function askForCard(requests: TriageRequests, client: LanguageClient, cfg: string): Promise<boolean> {
  if (asked.has(cfg)) {
    return true;
  }
  const draft = await requests.guard('NNIE: reading how the net was trained', () =>
    requests.send<CardDraft>(client, CARD_COMMANDS.draft, { cfg }),
  );
  if (!draft || draft.has_entry || !draft.prototxt) {
    return true;
  }
  asked.add(cfg);
  const choice = await vscode.window.showWarningMessage(ASK.message, { modal: true, detail: `The card would go to ${draft.card}.` }, ASK.declare, ASK.without);
  if (choice === ASK.without) {
    return true;
  }
  if (choice !== ASK.declare) {
    asked.delete(cfg);
    return false;
  }
  const values = await askValues(draft);
  if (!values) {
    asked.delete(cfg);
    return false;
  }
  const written = await requests.guard(`NNIE: writing ${basename(draft.card)}`, () =>
    requests.send<{ card?: string }>(client, CARD_COMMANDS.write, { cfg, values, sources: sourcesFor(draft, values) }),
  );
  if (written?.card) {
    void vscode.window.setStatusBarMessage(`NNIE: wrote ${written.card}`, 8000);
  }
  return written !== undefined;
}

async function askValues(draft: CardDraft): Promise<Record<CardKey, unknown> | undefined> {
  const net = draft.prototxt ? basename(draft.prototxt) : 'the net';
  const order = await vscode.window.showQuickPick(orderItems(draft), {
    title: `NNIE model card (1/4): the channel order ${net} was trained on`,
    ignoreFocusOut: true,
  });
  if (!order) {
    return undefined;
  }
  const mean = await numberBox(draft, 'mean', `NNIE model card (2/4): the mean subtracted from the 0-255 pixels first (per channel in ${order.value} order, or one value)`, '0');
  if (mean === undefined) {
    return undefined;
  }
  const scale = await numberBox(draft, 'scale', 'NNIE model card (3/4): the factor the pixels are multiplied by after the mean (1/255 is written 1/255; one per channel = 1/std)', '1');
  if (scale === undefined) {
    return undefined;
  }
  const transpose = await vscode.window.showQuickPick(transposeItems(draft), {
    title: 'NNIE model card (4/4): was the net trained on transposed images?',
    ignoreFocusOut: true,
  });
  if (!transpose) {
    return undefined;
  }
  return { channel_order: order.value, mean, scale, transpose: transpose.value };
}

async function numberBox(draft: CardDraft, key: CardKey, title: string, fallback: string): Promise<number | number[] | undefined> {
  const drafted = draftValue(draft, key);
  const text = await vscode.window.showInputBox({
    title,
    value: numbersText(drafted?.value) || fallback,
    prompt: whereFrom(drafted),
    ignoreFocusOut: true,
    validateInput: (v) => parseNumbers(v, key).error ?? null,
  });
  if (text === undefined) {
    return undefined;
  }
  return parseNumbers(text, key).value;
}
