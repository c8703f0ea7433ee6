import { expect, test } from 'vitest';
import { exchangeMessageLabel, exchangeMessageName, exchangeMessageOptions } from '../messageNames';

const described = [
  { id: '0x1001', name: '主链路登录请求', nameEn: 'Main link login request' },
  { id: '0x9300', name: '从链路平台间信息交互', nameEn: 'Sub link platform information exchange' },
];

test('a JT/T 809 message is named from the exchange message descriptions in the console language', () => {
  expect(exchangeMessageName(4097, 'zh-CN', described)).toBe('主链路登录请求');
  expect(exchangeMessageName(4097, 'en-US', described)).toBe('Main link login request');
  expect(exchangeMessageLabel(0x9300, 'zh-HK', described)).toBe('0x9300 从链路平台间信息交互');
});

test('an id the descriptions do not know shows as its hex alone; broken descriptions name nothing', () => {
  expect(exchangeMessageLabel(0x1234, 'zh-CN', described)).toBe('0x1234');
  expect(exchangeMessageName(4097, 'zh-CN', null)).toBe('');
  expect(exchangeMessageName(4097, 'zh-CN', [{ id: 1 }])).toBe('');
});

test('the message id filter offers every described message by id and name', () => {
  expect(exchangeMessageOptions('en-US', described)).toEqual([
    { value: 0x1001, label: '0x1001 Main link login request' },
    { value: 0x9300, label: '0x9300 Sub link platform information exchange' },
  ]);
});
