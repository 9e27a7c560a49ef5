// lsp_ext.ts: hone's custom LSP methods (protocol/schema/lsp.schema.json) as typed requests and
// notifications; the only place their names appear. Types and adapters live in wire.ts.
import { NotificationType, RequestType } from 'vscode-languageclient/node';
import type { DocumentParams, JobFinished, JobParams, JobProgress, KernelResult, ProposalParams, ProposalReply } from './wire';

export const checkRequest = new RequestType<JobParams, JobFinished, void>('hone/check');
export const profileRequest = new RequestType<JobParams, JobFinished, void>('hone/profile');
export const optimizeRequest = new RequestType<JobParams, JobFinished, void>('hone/optimize');
export const resultRequest = new RequestType<DocumentParams, KernelResult, void>('hone/result');
export const proposalRequest = new RequestType<ProposalParams, ProposalReply, void>('hone/proposal');
export const jobProgressNotification = new NotificationType<JobProgress>('hone/jobProgress');
export const jobFinishedNotification = new NotificationType<JobFinished>('hone/jobFinished');
