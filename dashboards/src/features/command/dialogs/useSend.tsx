import { App } from 'antd';
import { useState } from 'react';
import type { ApiReply } from '../../../api/types';

/**
 * Sends a command from a dialog: on acceptance shows the server's message ("指令已下发，等待网关处理中")
 * and closes the dialog; a refusal (offline: "终端不在线，不能发送指令！") has been shown by the client's
 * one failure handler and the dialog stays open.
 */
export function useSend(onClose: () => void) {
  const { message } = App.useApp();
  const [sending, setSending] = useState(false);
  const send = async (call: () => Promise<ApiReply<unknown>>) => {
    setSending(true);
    try {
      const reply = await call();
      if (reply.code === 0) {
        void message.success({ content: <span data-testid="command-accepted">{reply.message}</span> });
        onClose();
      }
    } finally {
      setSending(false);
    }
  };
  return { send, sending };
}
