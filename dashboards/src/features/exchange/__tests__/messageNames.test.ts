import { expect, test } from 'vitest';
import { exchangeMessageLabel, exchangeMessageName, exchangeMessageOptions, protocolOfPlatformKind } from '../messageNames';

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

const withGb = [
  ...described,
  { id: '0x05', name: '平台登入', nameEn: 'Platform login', protocol: 'gb32960' },
  { id: '0x06', name: '平台登出', nameEn: 'Platform logout', protocol: 'gb32960' },
];

test("a GB/T 32960 inferior platform's frames are named as GB/T 32960 commands, with the standard's two hex digits", () => {
  expect(exchangeMessageLabel(5, 'zh-CN', withGb, protocolOfPlatformKind('gb32960_inferior'))).toBe('0x05 平台登入');
  expect(exchangeMessageLabel(6, 'en-US', withGb, 'gb32960')).toBe('0x06 Platform logout');
  // the same number on a JT/T 809 link is not the GB command
  expect(exchangeMessageLabel(5, 'zh-CN', withGb, protocolOfPlatformKind('superior'))).toBe('0x0005');
  expect(exchangeMessageLabel(0x1001, 'zh-CN', withGb, 'gb32960')).toBe('0x1001');
  expect(exchangeMessageLabel(7, 'zh-CN', withGb, 'gb32960')).toBe('0x07');
});

test('the message id filter marks the GB/T 32960 commands', () => {
  expect(exchangeMessageOptions('zh-CN', withGb).slice(2)).toEqual([
    { value: 5, label: '0x05 平台登入 (GB/T 32960)' },
    { value: 6, label: '0x06 平台登出 (GB/T 32960)' },
  ]);
});
